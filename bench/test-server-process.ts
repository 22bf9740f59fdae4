import { InferenceServer } from '../src/testing/index.js';
import { JinjaChatTemplate, loadHfTokenizer } from '../src/tokens/index.js';
import { qwen3Directory } from '../test/support/qwen3.js';

/** The test inference server in its own process, so a benchmark's client CPU is measured alone. Prints its URL. */
const tokenizer = await loadHfTokenizer(qwen3Directory);
const server = new InferenceServer({ tokenizer, template: JinjaChatTemplate.fromConfig(tokenizer.config), respond: () => 'ok' });
process.stdout.write(`${await server.start()}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
