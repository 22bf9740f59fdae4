import { InferenceServer, type Responder } from '../src/testing/index.js';
import { JinjaChatTemplate, loadHfTokenizer } from '../src/tokens/index.js';
import { qwen3Directory } from '../test/support/qwen3.js';

/** A model that calls the counter tool once, then answers (NeMo Gym's session-state example, one tool turn). */
const counter: Responder = ({ text }) =>
  text.includes('<tool_response>') ? 'Done.' : '<tool_call>\n{"name": "increment_counter", "arguments": {"count": 3}}\n</tool_call>';

/** The test inference server in its own process, so a benchmark's client CPU is measured alone. Prints its URL. */
const tokenizer = await loadHfTokenizer(qwen3Directory);
const server = new InferenceServer({
  tokenizer,
  template: JinjaChatTemplate.fromConfig(tokenizer.config),
  respond: process.argv[2] === 'counter' ? counter : () => 'ok',
  recordRequests: false,
});
process.stdout.write(`${await server.start()}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
