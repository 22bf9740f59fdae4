import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { hasKind, SamplingParams } from '../../src/core/index.js';
import { isDeterministicFailure, recordError } from '../../src/core/recorded-error.js';
import { runEpisode } from '../../src/engine/index.js';
import {
  chatCompletionsBackend,
  RemotePolicy,
  sglangGenerateBackend,
  vllmCompletionsBackend,
  type BackendRecipe,
  type PolicyRequest,
  type RouterEvent,
} from '../../src/policy/index.js';
import type { InferenceServer, Responder } from '../../src/testing/index.js';
import { addTask, startServers, toolEpisodeOptions, toolUser } from '../support/loopback-model.js';
import { qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
const started: InferenceServer[] = [];
const policies: RemotePolicy<unknown>[] = [];
after(async () => {
  await Promise.all(policies.map((policy) => policy.close()));
  await Promise.all(started.map((server) => server.close()));
});

/** A test server of `flavor` answering `respond` (default: a plain answer), and a policy over it that retries at once. */
async function serve(flavor: 'vllm' | 'sglang', backend: BackendRecipe<unknown>, options: { maxAttempts?: number; respond?: Responder } = {}) {
  const { maxAttempts = 4, respond = () => 'the answer is four' } = options;
  const [server] = await startServers(1, { flavor, respond });
  started.push(server!);
  const events: RouterEvent[] = [];
  const policy = new RemotePolicy({
    backend,
    urls: [server!.url],
    tokenizer,
    model: 'm',
    maxModelLen: 8192,
    retry: { maxAttempts, baseDelayMs: 1, maxDelayMs: 5 },
    onEvent: (event) => events.push(event),
  });
  policies.push(policy);
  return { server: server!, policy, events, url: server!.url };
}

const request: PolicyRequest = {
  session_id: 's',
  prompt_token_ids: tokenizer.encode('<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n'),
  messages: [{ role: 'user', content: 'What is 2+2?' }],
  sampling: SamplingParams.parse({ max_tokens: 32, seed: 1 }),
  stop_strings: [],
  stop_token_ids: [],
};
const signal = new AbortController().signal;
const OUTSIDE = 151_999;
const retried = (events: RouterEvent[]) => events.filter((event) => event.type === 'retry').map((event) => event.error);

/** Each backend's name, how to reach it, and where its answer puts the 4th sampled id and logprob. */
const backends: { name: string; flavor: 'vllm' | 'sglang'; backend: BackendRecipe<unknown>; path: string; id: string; logprob: string; text: string }[] = [
  {
    name: 'vllm-completions',
    flavor: 'vllm',
    backend: vllmCompletionsBackend,
    path: '/v1/completions',
    id: 'choices[0].token_ids[3]',
    logprob: 'choices[0].logprobs.token_logprobs[3]',
    text: 'choices[0].text',
  },
  {
    name: 'vllm-chat',
    flavor: 'vllm',
    backend: chatCompletionsBackend('vllm'),
    path: '/v1/chat/completions',
    id: 'choices[0].token_ids[3]',
    logprob: 'choices[0].logprobs.content[3].logprob',
    text: 'choices[0].message.content',
  },
  {
    name: 'sglang-chat',
    flavor: 'sglang',
    backend: chatCompletionsBackend('sglang'),
    path: '/v1/chat/completions',
    id: 'choices[0].token_ids[3]',
    logprob: 'choices[0].logprobs.content[3].logprob',
    text: 'choices[0].message.content',
  },
  {
    name: 'sglang-generate',
    flavor: 'sglang',
    backend: sglangGenerateBackend,
    path: '/generate',
    id: 'meta_info.output_token_logprobs[3][1]',
    logprob: 'meta_info.output_token_logprobs[3][0]',
    text: 'text',
  },
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

for (const { name, flavor, backend, path, id, logprob, text } of backends) {
  describe(`${name}: a reply the sampler could not have produced`, () => {
    it('is refused and asked for again when a token id is outside the vocabulary, naming the field and value', async () => {
      const { server, policy, events, url } = await serve(flavor, backend);
      server.faults.inject({ kind: 'corrupt-token', at: 3, id: OUTSIDE });
      const result = await policy.generate(request, signal);
      assert.ok(result.token_ids.every((token) => token < tokenizer.vocabSize));
      assert.equal(server.requests.filter((call) => call.path === path).length, 2);
      assert.deepEqual(retried(events), [`${name} ${url}: reply ${id} = ${OUTSIDE} is outside the vocabulary [0, ${tokenizer.vocabSize})`]);
    });

    it('is refused when a logprob is positive', async () => {
      const { server, policy, events } = await serve(flavor, backend);
      server.faults.inject({ kind: 'corrupt-token', at: 3, logprob: 0.5 });
      await policy.generate(request, signal);
      assert.match(retried(events)[0] ?? '', new RegExp(`reply ${escapeRegExp(logprob)} = 0.5 is not a log-probability \\(a finite number ≤ 0\\)$`));
    });

    it('is refused when an id in the vocabulary is not the one the text was decoded from', async () => {
      const { server, policy, events } = await serve(flavor, backend);
      server.faults.inject({ kind: 'corrupt-token', at: 1, id: tokenizer.encode('QQ')[0]! });
      await policy.generate(request, signal);
      assert.match(retried(events)[0] ?? '', new RegExp(`reply ${escapeRegExp(text)} is not the text of `));
    });

    it("fails the request as the server's fault once every attempt was refused: retryable, never terminal", async () => {
      const { server, policy } = await serve(flavor, backend, { maxAttempts: 3 });
      server.faults.inject({ kind: 'corrupt-token', id: OUTSIDE }, 3);
      const error = await policy.generate(request, signal).then(
        () => assert.fail('a bad reply was taken'),
        (caught: unknown) => caught,
      );
      assert.ok(hasKind(error, 'sampler-reply') && error.isRetryable, String(error));
      assert.equal(server.requests.filter((call) => call.path === path).length, 3);
      assert.equal(isDeterministicFailure(recordError(error)), false);
    });
  });
}

describe('a refused prompt', () => {
  const tokenIdRefusal = { kind: 'status' as const, status: 400, message: `prompt[40] is ${OUTSIDE}: token ids must be from 0 to ${tokenizer.vocabSize - 1}` };

  it("on a continuing turn (the prompt holds the server's earlier reply) blames the server: a failure that is not terminal", async () => {
    const { server, policy } = await serve('vllm', vllmCompletionsBackend, { respond: toolUser });
    server.faults.inject({ kind: 'latency', ms: 0 }); // the first turn
    server.faults.inject(tokenIdRefusal);
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.ok(record.record_type === 'failure', JSON.stringify(record.termination));
    assert.equal(record.failure_class, 'policy-error');
    assert.equal(record.error.kind, 'sampler-reply');
    assert.equal(record.error.status, 400);
    assert.match(record.error.message, /token ids must be from 0 to .*: its fault, not the input's/);
    assert.equal(isDeterministicFailure(record.error), false);
    assert.equal(server.requests.filter((call) => call.path === '/v1/completions').length, 2, 'the same prompt is not sent again: it would be refused again');
  });

  it("on the first turn (the prompt is the input alone) stays the request's fault: terminal", async () => {
    const { server, policy } = await serve('vllm', vllmCompletionsBackend, { respond: toolUser });
    server.faults.inject(tokenIdRefusal);
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.ok(record.record_type === 'failure');
    assert.equal(record.error.kind, 'server');
    assert.equal(isDeterministicFailure(record.error), true);
  });

  it('for another reason on a continuing turn stays terminal', async () => {
    const { server, policy } = await serve('vllm', vllmCompletionsBackend, { respond: toolUser });
    server.faults.inject({ kind: 'latency', ms: 0 });
    server.faults.inject({ kind: 'status', status: 400, message: 'temperature must be at most 2' });
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.ok(record.record_type === 'failure');
    assert.equal(record.error.kind, 'server');
    assert.equal(isDeterministicFailure(record.error), true);
  });
});
