import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { flatTokenIds } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import {
  chatCompletionsBackend,
  openAiBackend,
  RemotePolicy,
  sglangGenerateBackend,
  vllmCompletionsBackend,
  type BackendRecipe,
} from '../../src/policy/index.js';
import type { InferenceServer, Tokenization } from '../../src/testing/index.js';
import { PlainChatTemplate, TemplateRenderer, TokenLedger } from '../../src/tokens/index.js';
import { addTask, startServers, toolEpisodeOptions } from '../support/loopback-model.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const started: InferenceServer[] = [];
const policies: RemotePolicy<unknown>[] = [];
after(async () => {
  await Promise.all(policies.map((policy) => policy.close()));
  await Promise.all(started.map((server) => server.close()));
});

async function serve(flavor: 'vllm' | 'sglang', backend: BackendRecipe<unknown>, serverTemplate?: 'plain', tokenization: Tokenization = 'canonical') {
  const [server] = await startServers(1, { flavor, tokenization, ...(serverTemplate ? { template: new PlainChatTemplate() } : {}) });
  started.push(server!);
  const policy = new RemotePolicy({ backend, urls: [server!.url], tokenizer: await qwen3Tokenizer(), model: 'm', maxModelLen: 8192 });
  policies.push(policy);
  return { server: server!, policy };
}

interface Answer {
  choices?: { token_ids: number[]; logprobs: { content: { logprob: number }[] } }[];
  output_ids?: number[];
  meta_info?: { output_token_logprobs: [number, number, null][] };
}

const sampled = (answer: Answer) =>
  answer.choices
    ? { ids: answer.choices[0]!.token_ids, logprobs: answer.choices[0]!.logprobs.content.map((entry) => entry.logprob) }
    : { ids: answer.output_ids!, logprobs: answer.meta_info!.output_token_logprobs.map(([logprob]) => logprob) };

// sglang-generate's episode runs on non-canonical ids below, where its prompts are checked too.
const cases: [string, 'vllm' | 'sglang', BackendRecipe<unknown>, string][] = [
  ['vllm-chat', 'vllm', chatCompletionsBackend('vllm'), '/v1/chat/completions'],
  ['sglang-chat', 'sglang', chatCompletionsBackend('sglang'), '/v1/chat/completions'],
];

for (const [name, flavor, backend, path] of cases) {
  describe(`${name} over loopback HTTP`, () => {
    it('runs a multi-turn tool episode with exactly the sampled ids and logprobs, and no drift from the ledger when the server renders it alike', async () => {
      const { server, policy } = await serve(flavor, backend);
      const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
      assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
      assert.equal(record.reward, 1);
      assert.equal(record.token_drift_count, 0);
      // Counted where the server renders: every turn checked.
      assert.equal(record.drift_unchecked, 0);
      const calls = server.requests.filter((request) => request.path === path);
      const assistants = record.messages.filter((message) => message.role === 'assistant');
      assert.equal(calls.length, 2);
      calls.forEach((call, turn) => {
        const { ids, logprobs } = sampled(call.response!.body as Answer);
        assert.deepEqual(assistants[turn]!.token_ids, ids);
        assert.deepEqual(assistants[turn]!.generation_logprobs, logprobs);
      });
    });
  });
}

const tokenizer = await qwen3Tokenizer();
/** What a client that re-derives ids from text gets for these ids. */
const reEncoded = (ids: readonly number[]) => tokenizer.encode(tokenizer.decode(ids));

describe('on a sampler whose ids are not encode(text), as a real one may spell its reply', () => {
  it('sglang-generate: the rollout holds exactly the sampled ids and logprobs, and each prompt sent is exactly the ledger', async () => {
    const { server, policy } = await serve('sglang', sglangGenerateBackend, undefined, 'non-canonical');
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
    assert.equal(record.token_drift_count, 0);
    // Absent where the prompt is sent as ids: nothing is left unchecked.
    assert.equal(record.drift_unchecked, undefined);
    const calls = server.requests.filter((request) => request.path === '/generate');
    const assistants = record.messages.filter((message) => message.role === 'assistant');
    assert.equal(calls.length, 2);
    assert.notDeepEqual(assistants[0]!.token_ids, reEncoded(assistants[0]!.token_ids!), 'the server spelled the reply non-canonically');
    calls.forEach((call, turn) => {
      const { ids, logprobs } = sampled(call.response!.body as Answer);
      assert.deepEqual(assistants[turn]!.token_ids, ids);
      assert.deepEqual(assistants[turn]!.generation_logprobs, logprobs);
    });
    assert.deepEqual((calls[0]!.body as { input_ids: number[] }).input_ids, flatTokenIds({ messages: record.messages.slice(0, 1) }));
    assert.deepEqual((calls[1]!.body as { input_ids: number[] }).input_ids, flatTokenIds({ messages: record.messages.slice(0, 3) }));
  });

  for (const flavor of ['vllm', 'sglang'] as const) {
    it(`${flavor}-chat: the rollout holds exactly the sampled ids and logprobs, and the server's re-tokenized history is a drift where the ledger has the reply as sampled (warn)`, async () => {
      const { server, policy } = await serve(flavor, chatCompletionsBackend(flavor), undefined, 'non-canonical');
      const options = await toolEpisodeOptions(policy, { renderer: new TemplateRenderer(tokenizer, await qwen3Template(), { drift: 'warn' }) });
      const record = await runEpisode(addTask(0), 0, options);
      assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
      const calls = server.requests.filter((request) => request.path === '/v1/chat/completions');
      const assistants = record.messages.filter((message) => message.role === 'assistant');
      assert.equal(calls.length, 2);
      calls.forEach((call, turn) => {
        const { ids, logprobs } = sampled(call.response!.body as Answer);
        assert.deepEqual(assistants[turn]!.token_ids, ids);
        assert.deepEqual(assistants[turn]!.generation_logprobs, logprobs);
      });
      // The server renders the conversation's text and encodes it: the first reply comes back canonical.
      const ledger = flatTokenIds({ messages: record.messages.slice(0, 3) });
      const answer = calls[1]!.response!.body as { prompt_token_ids?: number[]; choices: { prompt_token_ids?: number[] }[] };
      const serverPrompt = answer.prompt_token_ids ?? answer.choices[0]!.prompt_token_ids!;
      assert.deepEqual(serverPrompt, reEncoded(ledger));
      const at = ledger.findIndex((id, i) => id !== serverPrompt[i]);
      const replyStart = record.messages[0]!.token_ids!.length;
      assert.ok(at >= replyStart && at < replyStart + assistants[0]!.token_ids!.length, `the drift is inside the first reply (at ${at})`);
      assert.equal(record.token_drift_count, 1);
      assert.deepEqual(
        record.turns.map((turn) => turn.token_drift && [turn.token_drift.source, turn.token_drift.at]),
        [undefined, ['server', at]],
      );
    });
  }
});

describe('server-rendered prompts', () => {
  it('count as drift when the server renders a different prompt from the ledger (warn)', async () => {
    const { policy } = await serve('vllm', chatCompletionsBackend('vllm'), 'plain');
    const options = await toolEpisodeOptions(policy, { renderer: new TemplateRenderer(await qwen3Tokenizer(), await qwen3Template(), { drift: 'warn' }) });
    const record = await runEpisode(addTask(0), 0, options);
    assert.equal(record.record_type, 'rollout');
    assert.ok(record.token_drift_count >= 1);
    assert.equal(record.turns[0]!.token_drift?.source, 'server');
    assert.equal(record.turns[0]!.token_drift?.at, 0);
  });

  // A prompt that begins with the whole ledger and goes on was counted drift-free only by the length check.
  it("count as drift at the ledger's end when the server's prompt extends it: told enable_thinking false, its template adds an empty think block the ledger lacks (warn)", async () => {
    const { server, policy } = await serve('vllm', chatCompletionsBackend('vllm', { chatTemplateKwargs: { enable_thinking: false } }));
    const options = await toolEpisodeOptions(policy, { renderer: new TemplateRenderer(tokenizer, await qwen3Template(), { drift: 'warn' }) });
    const record = await runEpisode(addTask(0), 0, options);
    assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
    const ledger = record.messages[0]!.token_ids!;
    const serverPrompt = (server.requests.find((request) => request.path === '/v1/chat/completions')!.response!.body as { prompt_token_ids: number[] })
      .prompt_token_ids;
    assert.deepEqual(serverPrompt.slice(0, ledger.length), ledger);
    assert.equal(tokenizer.decode(serverPrompt.slice(ledger.length)), '<think>\n\n</think>\n\n');
    assert.deepEqual(record.turns[0]!.token_drift, { source: 'server', at: ledger.length, ledger: '', template: '<think>\n\n</think>\n\n' });
    assert.equal(record.token_drift_count, record.turns.length);
  });

  it('fail the episode as token-alignment in strict mode', async () => {
    const { policy } = await serve('sglang', chatCompletionsBackend('sglang'), 'plain');
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.equal(record.record_type === 'failure' && record.failure_class, 'token-alignment');
  });

  // sglang-chat read the ids only on the choice: every turn of a server that puts them at the top was written drift-free.
  it('are checked wherever the answer has their ids: a server that answers sglang-chat in vLLM’s place (at the top, not on the choice)', async () => {
    const { policy } = await serve('vllm', chatCompletionsBackend('sglang'), 'plain');
    const options = await toolEpisodeOptions(policy, { renderer: new TemplateRenderer(await qwen3Tokenizer(), await qwen3Template(), { drift: 'warn' }) });
    const record = await runEpisode(addTask(0), 0, options);
    assert.equal(record.record_type, 'rollout');
    assert.ok(record.turns.length > 0);
    assert.equal(record.token_drift_count, record.turns.length);
    assert.ok(record.turns.every((turn) => turn.token_drift?.source === 'server' && turn.drift_unchecked === false));
    assert.equal(record.drift_unchecked, 0);
  });

  it('whose answer has no ids are drift-unchecked: counted as neither drift nor drift-free, the episode going on in strict mode', async () => {
    const { server, policy } = await serve('sglang', chatCompletionsBackend('sglang'));
    server.faults.inject({ kind: 'prompt-ids', ids: null }, 10);
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
    assert.equal(record.turns.length, 2);
    assert.equal(record.token_drift_count, 0);
    assert.equal(record.drift_unchecked, 2);
    assert.deepEqual(
      record.turns.map((turn) => turn.drift_unchecked),
      [true, true],
    );
  });
});

describe('token-in prompts echoed by the server', () => {
  const tokenIn: [string, 'vllm' | 'sglang', BackendRecipe<unknown>][] = [
    ['vllm-completions', 'vllm', vllmCompletionsBackend as BackendRecipe<unknown>],
    ['sglang-generate', 'sglang', sglangGenerateBackend as BackendRecipe<unknown>],
  ];
  for (const [name, flavor, backend] of tokenIn) {
    it(`${name}: a server that says it sampled from other ids than those sent is a drift (token-alignment in strict mode)`, async () => {
      const { server, policy } = await serve(flavor, backend);
      server.faults.inject({ kind: 'prompt-ids', ids: [151_644, 872] });
      const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
      assert.equal(record.record_type === 'failure' && record.failure_class, 'token-alignment', JSON.stringify(record.termination));
      assert.match(record.record_type === 'failure' ? record.error.message : '', /the server sampled from a different prompt from the sequence at token 1/);
    });

    it(`${name}: a server that says it sampled from the ids sent and more is a drift at their end`, async () => {
      const { server, policy } = await serve(flavor, backend);
      const options = await toolEpisodeOptions(policy);
      const sent = options.renderer
        .renderDelta(new TokenLedger(tokenizer), [], addTask(0).messages, { addGenerationPrompt: true, tools: addTask(0).tools! })
        .tokenIds.flat();
      server.faults.inject({ kind: 'prompt-ids', ids: [...sent, 198] });
      const record = await runEpisode(addTask(0), 0, options);
      assert.equal(record.record_type === 'failure' && record.failure_class, 'token-alignment', JSON.stringify(record.termination));
      assert.ok(
        record.record_type === 'failure' && record.error.message.endsWith(`at token ${sent.length}: the sequence has "", the server "\\n"`),
        JSON.stringify(record.termination),
      );
    });
  }
});

describe('openai (text-only endpoints)', () => {
  it('runs episodes for evaluation, and its rollouts say they carry no training tokens', async () => {
    const { server, policy } = await serve('vllm', openAiBackend);
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
    assert.equal(record.reward, 1);
    assert.equal(record.has_training_tokens, false);
    // A hosted model renders its own prompt and never says with which ids.
    assert.equal(record.drift_unchecked, record.turns.length);
    assert.ok(record.messages.filter((message) => message.role === 'assistant').every((message) => message.generation_logprobs === undefined));
    const body = server.requests.find((request) => request.path === '/v1/chat/completions')!.body as Record<string, unknown>;
    assert.equal(body.return_token_ids, undefined);
  });
});
