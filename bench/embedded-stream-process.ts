import { EmbeddedPolicy } from '../src/policy/index.js';
import { embeddedModelServer } from '../src/servers/openai-compatible/embedded-model-server.js';
import type { HfTokenizer } from '../src/tokens/index.js';

/**
 * `serve model --embedded` in its own process, as users run it, so the benchmark's client does not share
 * its CPU, with one change: the tokenizer names no end token, so every answer runs to max_tokens (the
 * model ends a sum after three tokens). Prints its URL.
 */
const loaded = await EmbeddedPolicy.load();
const tokenizer = loaded.tokenizer as HfTokenizer;
const endless = {
  encode: (text: string) => tokenizer.encode(text),
  decode: (ids: readonly number[]) => tokenizer.decode(ids),
  stopTokenIds: [],
  vocabSize: tokenizer.vocabSize,
  maxCharsPerToken: tokenizer.maxCharsPerToken,
  config: tokenizer.config,
} as unknown as HfTokenizer;
const policy = new EmbeddedPolicy(loaded.model, endless);
const server = embeddedModelServer(policy, {});
process.stdout.write(`${await server.start()}\n`);
process.on('SIGTERM', () => void Promise.all([server.close(), policy.close()]).then(() => process.exit(0)));
