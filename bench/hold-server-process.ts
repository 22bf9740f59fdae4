import { InferenceServer } from '../src/testing/index.js';
import { JinjaChatTemplate, loadHfTokenizer } from '../src/tokens/index.js';
import { qwen3Directory } from '../test/support/qwen3.js';

/**
 * A slow policy for measuring what an in-flight episode holds: the test inference server (Qwen3) in
 * its own process that answers every first turn of an arithmetic rollout at once (`ok`, or `argv[4]`
 * words) and holds every second one (its prompt has the environment's "incorrect, try again") until
 * it exits: every episode stays mid-flight with one turn done. Prints its URL, then `held N` once it
 * has answered `argv[2]` first turns and holds `argv[3]` second ones (as many as the client's
 * connections carry: the others wait in the client).
 */
const GENERATION_PATHS = new Set(['/v1/completions', '/v1/chat/completions', '/v1/responses', '/generate']);
const RETRY = 'incorrect, try again';
const rollouts = Number(process.argv[2]);
const holding = Number(process.argv[3]);
const replyWords = Number(process.argv[4] ?? 0);
const WORDS = ['the', 'answer', 'is', 'not', 'yet', 'known', 'so', 'we', 'keep', 'thinking'];
const reply = replyWords > 0 ? Array.from({ length: replyWords }, (_, i) => WORDS[i % WORDS.length]).join(' ') : 'ok';
let answered = 0;
let held = 0;
let told = false;
/**
 * Under load a few rollouts fail their first turn for good (their retries spent), so the counts above
 * are never reached: requests stopping for QUIET_MS means every rollout still running is held.
 */
const QUIET_MS = 5_000;
const quiet = setTimeout(() => held > 0 && tell(), QUIET_MS);
function tell(): void {
  if (told) return;
  told = true;
  clearTimeout(quiet);
  process.stdout.write(`held ${held}\n`);
}
const tokenizer = await loadHfTokenizer(qwen3Directory);
const server = new InferenceServer({
  tokenizer,
  template: JinjaChatTemplate.fromConfig(tokenizer.config),
  respond: () => reply,
  recordRequests: false,
  onRequest: async (call, request, signal) => {
    if (request.method !== 'POST' || !GENERATION_PATHS.has(call.path)) return;
    const second = promptText(call.body).includes(RETRY);
    if (second) held++;
    else answered++;
    // At least, not exactly: a first turn the client retried (a connection reset while a thousand open) is answered twice.
    if (held >= holding && answered >= rollouts) tell();
    else quiet.refresh();
    if (second) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  },
});
/** The prompt as text: chat messages as JSON, a token-id prompt decoded. */
function promptText(body: unknown): string {
  const prompt = (body as { prompt?: unknown }).prompt;
  return Array.isArray(prompt) && typeof prompt[0] === 'number' ? tokenizer.decode(prompt as number[]) : JSON.stringify(body);
}

process.stdout.write(`${await server.start()}\n`);
process.on('SIGTERM', () => process.exit(0));
