import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { flatTokenIds, type EpisodeRecord } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { RemotePolicy, vllmCompletionsBackend } from '../../src/policy/index.js';
import { addTask, startServers, toolEpisodeOptions } from '../support/loopback-model.js';
import { qwen3Tokenizer } from '../support/qwen3.js';

const servers = await startServers(1, { maxModelLen: 4096, tokenization: 'non-canonical' });
const [server] = servers;
const tokenizer = await qwen3Tokenizer();
const policies: RemotePolicy<unknown>[] = [];
const policy = (options: Partial<ConstructorParameters<typeof RemotePolicy>[0]> = {}) => {
  const created = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [server!.url], tokenizer, retry: { baseDelayMs: 10 }, ...options });
  policies.push(created);
  return created;
};
after(async () => {
  await Promise.all(policies.map((created) => created.close()));
  await Promise.all(servers.map((created) => created.close()));
});

interface CompletionBody {
  prompt: number[];
  max_tokens: number;
  seed: number;
}
interface CompletionAnswer {
  choices: { token_ids: number[]; logprobs: { token_logprobs: number[] } }[];
}

describe('vllm-completions over loopback HTTP', () => {
  // The server spells its replies as a real sampler may, not as encode(text): ids re-derived from text would differ.
  it('runs a multi-turn tool episode with exactly the ids and logprobs the server sampled, sending exactly the ledger as the prompt', async () => {
    server!.requests.length = 0;
    const record: EpisodeRecord = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy()));
    assert.equal(record.record_type, 'rollout');
    assert.equal(record.reward, 1);
    assert.equal(record.turns.length, 2);

    const calls = server!.requests.filter((request) => request.path === '/v1/completions');
    const assistants = record.messages.filter((message) => message.role === 'assistant');
    assert.equal(calls.length, 2);
    assert.notDeepEqual(
      assistants[0]!.token_ids,
      tokenizer.encode(tokenizer.decode(assistants[0]!.token_ids!)),
      'the server spelled the reply non-canonically',
    );
    calls.forEach((call, turn) => {
      const answer = call.response!.body as CompletionAnswer;
      assert.deepEqual(assistants[turn]!.token_ids, answer.choices[0]!.token_ids);
      assert.deepEqual(assistants[turn]!.generation_logprobs, answer.choices[0]!.logprobs.token_logprobs);
    });
    const secondPrompt = (calls[1]!.body as CompletionBody).prompt;
    assert.deepEqual(secondPrompt, flatTokenIds({ messages: record.messages.slice(0, 3) }));
    assert.equal(record.token_drift_count, 0);
  });

  it('accepts base URLs written with /v1 and sends the API key as a bearer token', async () => {
    server!.requests.length = 0;
    const keyed = policy({ urls: [`${server!.url}/v1/`], apiKey: 'secret-key' });
    const record = await runEpisode(addTask(6), 0, await toolEpisodeOptions(keyed));
    assert.equal(record.record_type, 'rollout');
    assert.ok(server!.requests.every((request) => request.authorization === 'Bearer secret-key'));
  });

  it('sends a per-rollout seed and labels every request with the episode as X-Session-ID', async () => {
    server!.requests.length = 0;
    const options = await toolEpisodeOptions(policy());
    await runEpisode(addTask(1), 0, options);
    await runEpisode(addTask(1), 1, options);
    const calls = server!.requests.filter((request) => request.path === '/v1/completions');
    assert.deepEqual(
      calls.map((call) => call.sessionId),
      ['add-1#0', 'add-1#0', 'add-1#1', 'add-1#1'],
    );
    assert.equal(new Set(calls.map((call) => (call.body as CompletionBody).seed)).size, 4);
  });

  it("clamps max_tokens to the room left in the model's context, read from /v1/models", async () => {
    server!.requests.length = 0;
    const options = await toolEpisodeOptions(policy(), { sampling: (await toolEpisodeOptions(policy())).sampling });
    const record = await runEpisode(addTask(2), 0, { ...options, sampling: { ...options.sampling, max_tokens: 100_000 }, maxSeqLen: 100_000 });
    assert.equal(record.record_type, 'rollout');
    const first = server!.requests.find((request) => request.path === '/v1/completions')!.body as CompletionBody;
    assert.equal(first.max_tokens, 4096 - first.prompt.length);
  });

  it('ends an episode whose prompt fills the context as prompt-too-long, without sending it', async () => {
    server!.requests.length = 0;
    const record = await runEpisode(addTask(3), 0, await toolEpisodeOptions(policy({ maxModelLen: 100, model: 'gymnast-test-model' })));
    assert.equal(record.record_type, 'rollout');
    assert.equal(record.termination.kind, 'prompt-too-long');
    assert.equal(server!.requests.filter((request) => request.path === '/v1/completions').length, 0);
  });

  it("looks the model up under no one episode's deadline: another episode's timeout does not fail the rest", async () => {
    server!.faults.inject({ kind: 'latency', ms: 300 });
    const shared = policy();
    const hurried = new AbortController();
    setTimeout(() => hurried.abort(new Error('episode A deadline')), 50);
    const first = shared.generate(
      {
        session_id: 'a',
        prompt_token_ids: [1, 2, 3],
        messages: [],
        sampling: (await toolEpisodeOptions(shared)).sampling,
        stop_strings: [],
        stop_token_ids: [],
      },
      hurried.signal,
    );
    const second = shared.generate(
      {
        session_id: 'b',
        prompt_token_ids: [1, 2, 3],
        messages: [],
        sampling: (await toolEpisodeOptions(shared)).sampling,
        stop_strings: [],
        stop_token_ids: [],
      },
      new AbortController().signal,
    );
    await assert.rejects(first, /episode A deadline/);
    assert.ok((await second).token_ids!.length > 0);
  });

  it("classifies the server's context-length 400 as a truncation (before any turn, prompt-too-long), and any other 400 as a policy error", async () => {
    const tooLong = await runEpisode(
      addTask(4),
      0,
      await toolEpisodeOptions(policy({ maxModelLen: 1_000_000, model: 'gymnast-test-model' }), {
        maxSeqLen: 1_000_000,
        sampling: { ...(await toolEpisodeOptions(policy())).sampling, max_tokens: 500_000 },
      }),
    );
    assert.equal(tooLong.termination.kind, 'prompt-too-long');
    assert.match(tooLong.termination.detail ?? '', /maximum context length is 4096/);

    server!.faults.inject({ kind: 'status', status: 400, message: 'top_p must be in (0, 1]' });
    const invalid = await runEpisode(addTask(5), 0, await toolEpisodeOptions(policy()));
    assert.equal(invalid.record_type === 'failure' && invalid.failure_class, 'policy-error');
    assert.match(invalid.termination.detail ?? '', /HTTP 400: top_p/);
  });
});
