import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { builtinAgent } from '../../src/collect/agent.js';
import { SamplingParams } from '../../src/core/index.js';
import { AgentServer } from '../../src/servers/agent/agent-server.js';
import { ScriptedPolicy, type Script } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';
import { within } from '../support/within.js';
import { RemotePolicy, vllmCompletionsBackend } from '../../src/policy/index.js';
import { qwen3Template, qwen3Tokenizer, startQwen3Server } from '../support/qwen3.js';

const tokenizer = new CharTokenizer();

/** Emits `hang` when a rollout's request reaches the policy and is held there. */
const policyEvents = new EventEmitter();

/**
 * The arithmetic agent on a scripted policy: a prompt containing "fail" errors, "hang" waits a minute
 * (far past any bound a spec waits for it to end by other means), others answer 87.
 */
const script: Script = (request) => {
  const prompt = JSON.stringify(request.messages);
  if (prompt.includes('fail')) return { error: new Error('the model server fell over') };
  if (prompt.includes('hang')) {
    policyEvents.emit('hang');
    return { text: '87', delay_ms: 60_000 };
  }
  return { text: '87' };
};

function agentServer(options: { apiKey?: string; concurrency?: number; maxQueued?: number; runTimeoutMs?: number } = {}): AgentServer {
  return new AgentServer({
    agent: builtinAgent('arithmetic')!,
    episode: {
      policy: new ScriptedPolicy({ tokenizer, script }),
      renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
      maxTurns: 2,
      maxSeqLen: 4096,
      sampling: SamplingParams.parse({ max_tokens: 16 }),
    },
    ...options,
  });
}

const row = (content: string, extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: 'user', content }] },
  agent_ref: { type: 'responses_api_agents', name: 'arithmetic' },
  _ng_task_index: 3,
  _ng_rollout_index: 1,
  problem: '50+37',
  answer: 87,
  ...extra,
});

const post = (url: string, path: string, body: unknown, init: RequestInit = {}) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
    ...(init.signal ? { signal: init.signal } : {}),
  });

describe('AgentServer: gymnast as a NeMo Gym agent server', () => {
  let server: AgentServer;
  before(async () => {
    server = agentServer({ runTimeoutMs: 60_000 });
    await server.start();
  });
  after(() => server.close());

  it("answers /run with NeMo Gym's verify response: the row echoed, response output items, reward, verifier fields, and gymnast's token fields", async () => {
    const response = await post(server.url, '/run', row('what is 50+37?'));
    assert.equal(response.status, 200);
    const result = (await response.json()) as Record<string, unknown>;
    assert.equal(result.reward, 1);
    assert.deepEqual(result.responses_create_params, { input: [{ role: 'user', content: 'what is 50+37?' }] });
    assert.deepEqual([result._ng_task_index, result._ng_rollout_index, result.problem, result.answer], [3, 1, '50+37', 87]);
    const output = (result.response as { output: { type: string; role: string }[] }).output;
    assert.equal(output[0]!.role, 'assistant');
    assert.equal(result.extracted_answer, '87');
    assert.equal(result.terminated, true);
    assert.equal(result._ng_failure_class, undefined);
    const messages = result.messages as { role: string; token_ids?: number[]; generation_logprobs?: number[] }[];
    const assistant = messages.find((message) => message.role === 'assistant')!;
    assert.deepEqual(assistant.token_ids!.slice(0, 2), tokenizer.encode('87'), 'the sampled ids, exactly');
    assert.equal(assistant.generation_logprobs!.length, assistant.token_ids!.length);
    assert.equal(result.has_training_tokens, true);
  });

  it('refuses a malformed row with 400 naming the field, before any work', async () => {
    const missing = await post(server.url, '/run', { ...row('x'), _ng_task_index: 'zero' });
    assert.equal(missing.status, 400);
    assert.equal(((await missing.json()) as { error: { field: string } }).error.field, '_ng_task_index');
    const noPrompt = await post(server.url, '/run', { ...row('x'), responses_create_params: {} });
    assert.equal(noPrompt.status, 400);
    assert.equal(((await noPrompt.json()) as { error: { field: string } }).error.field, 'responses_create_params.input');
    const badTask = await post(server.url, '/run', { ...row('x'), answer: 'eighty-seven' });
    assert.equal(badTask.status, 400);
    assert.match(((await badTask.json()) as { error: { message: string } }).error.message, /answer/);
  });

  it('answers a failed rollout 200 with _ng_failure_class and no reward, so the collector files it as a failure', async () => {
    const response = await post(server.url, '/run', row('please fail'));
    assert.equal(response.status, 200);
    const result = (await response.json()) as Record<string, unknown>;
    assert.equal(result._ng_failure_class, 'policy-error');
    assert.equal(result.reward, undefined);
    assert.match((result.error as { message: string }).message, /fell over/);
  });

  it('ends a rollout past its deadline as a timeout failure', async () => {
    const hasty = agentServer({ runTimeoutMs: 100 });
    await hasty.start();
    try {
      const answer = post(hasty.url, '/run', row('hang')).then((response) => response.json() as Promise<Record<string, unknown>>);
      const result = await within(answer, 20_000, 'a hung rollout past its 100 ms deadline');
      assert.equal(result._ng_failure_class, 'timeout');
    } finally {
      await hasty.close();
    }
  });

  it('aborts the rollout when the client hangs up', async () => {
    const client = new AbortController();
    const asked = once(policyEvents, 'hang');
    const pending = post(server.url, '/run', row('hang'), { signal: client.signal }).catch(() => undefined);
    await asked;
    assert.equal(server.load.running, 1);
    client.abort();
    await pending;
    await waitFor(() => server.load.running === 0);
  });

  it('aggregates rows as a NeMo Gym collector sends them (stripped) with gymnast metrics', async () => {
    const results = await Promise.all(
      [0, 1].map(
        async (rollout) => (await (await post(server.url, '/run', row('what is 50+37?', { _ng_rollout_index: rollout }))).json()) as Record<string, unknown>,
      ),
    );
    const verify_responses = results.map(({ responses_create_params: _request, response, ...rest }) => ({
      ...rest,
      response: { usage: (response as { usage: unknown }).usage },
    }));
    const response = await post(server.url, '/aggregate_metrics', { verify_responses });
    assert.equal(response.status, 200);
    const metrics = (await response.json()) as {
      agent_metrics: Record<string, number>;
      key_metrics: Record<string, number>;
      group_level_metrics: { _ng_task_index: number; num_rollouts: number }[];
    };
    assert.equal(metrics.key_metrics['mean/reward'], 1);
    assert.equal(metrics.agent_metrics['pass@1[avg-of-2]/accuracy'], 100);
    assert.equal(metrics.agent_metrics['mean/answer'], undefined, "the task's own fields are not metrics");
    assert.deepEqual(
      metrics.group_level_metrics.map((group) => [group._ng_task_index, group.num_rollouts]),
      [[3, 2]],
    );
    const bad = await post(server.url, '/aggregate_metrics', { verify_responses: [{ reward: 'high' }] });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: { field: string } }).error.field, /^verify_responses\[0\]\.reward$/);
  });

  it('refuses two verify responses of one rollout with a 400 naming the second (NeMo Gym reads a missing index as 0)', async () => {
    const twice = await post(server.url, '/aggregate_metrics', { verify_responses: [{ reward: 1 }, { reward: 0 }] });
    assert.equal(twice.status, 400);
    const { error } = (await twice.json()) as { error: { field: string; message: string } };
    assert.equal(error.field, 'verify_responses[1]._ng_rollout_index');
    assert.match(error.message, /rollout 0:0 .*verify_responses\[0\]/);
  });
});

describe('AgentServer on a model server whose ids are not encode(text), as a real sampler may spell its replies', () => {
  it("answers /run with exactly the ids and logprobs sampled, on the messages and on response.output's training fields, each call's prompt as sent", async () => {
    const qwen3 = await qwen3Tokenizer();
    const { server: model, url } = await startQwen3Server({
      tokenization: 'non-canonical',
      respond: ({ text }) =>
        text.includes('<tool_response>') ? '87' : 'I will use <tool_call>{"name": "calculator", "arguments": {"expression": "50+37"}}</tool_call>',
    });
    const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [url], tokenizer: qwen3, model: 'm', maxModelLen: 4096 });
    const server = new AgentServer({
      agent: builtinAgent('arithmetic')!,
      episode: {
        policy,
        renderer: new TemplateRenderer(qwen3, await qwen3Template()),
        maxTurns: 4,
        maxSeqLen: 4096,
        sampling: SamplingParams.parse({ max_tokens: 96, seed: 2 }),
      },
    });
    await server.start();
    try {
      const result = (await (await post(server.url, '/run', row('what is 50+37?'))).json()) as {
        reward: number;
        messages: { role: string; token_ids: number[]; generation_logprobs?: number[] }[];
        response: { output: { generation_token_ids?: number[]; prompt_token_ids?: number[]; generation_log_probs?: number[] }[] };
      };
      assert.equal(result.reward, 1, JSON.stringify(result.messages.map((message) => [message.role, (message as { content?: unknown }).content])));
      const calls = model.requests.filter((request) => request.path === '/v1/completions');
      assert.equal(calls.length, 2);
      const sent = calls.map((call) => (call.body as { prompt: number[] }).prompt);
      const sampled = calls.map((call) => (call.response!.body as { choices: { token_ids: number[]; logprobs: { token_logprobs: number[] } }[] }).choices[0]!);
      const assistants = result.messages.filter((message) => message.role === 'assistant');
      assert.deepEqual(
        assistants.map((message) => [message.token_ids, message.generation_logprobs]),
        sampled.map((choice) => [choice.token_ids, choice.logprobs.token_logprobs]),
      );
      assert.ok(
        assistants.some((message) => !isDeepStrictEqual(message.token_ids, qwen3.encode(qwen3.decode(message.token_ids)))),
        'the model server spelled a reply non-canonically',
      );
      const trained = result.response.output.filter((item) => item.generation_token_ids !== undefined);
      assert.deepEqual(
        trained.map((item) => [item.prompt_token_ids, item.generation_token_ids, item.generation_log_probs]),
        sampled.map((choice, i) => [sent[i], choice.token_ids, choice.logprobs.token_logprobs]),
      );
    } finally {
      await server.close();
      await policy.close();
    }
  });
});

describe('AgentServer: bounds and access', () => {
  it('requires the bearer token when one is set', async () => {
    const server = agentServer({ apiKey: 'sesame' });
    await server.start();
    try {
      assert.equal((await post(server.url, '/run', row('what is 50+37?'))).status, 401);
      assert.equal((await post(server.url, '/run', row('what is 50+37?'), { headers: { authorization: 'Bearer sesame' } })).status, 200);
    } finally {
      await server.close();
    }
  });

  it('runs at most `concurrency` rollouts, queues `maxQueued` more, and refuses the rest with 503', async () => {
    const server = agentServer({ concurrency: 1, maxQueued: 1, runTimeoutMs: 60_000 });
    await server.start();
    const client = new AbortController();
    try {
      const asked = once(policyEvents, 'hang');
      const first = post(server.url, '/run', row('hang'), { signal: client.signal }).catch(() => undefined);
      await asked;
      assert.equal(server.load.running, 1);
      const second = post(server.url, '/run', row('hang'), { signal: client.signal }).catch(() => undefined);
      await waitFor(() => server.load.queued === 1);
      const third = await post(server.url, '/run', row('what is 50+37?'));
      assert.equal(third.status, 503);
      assert.equal(third.headers.get('retry-after'), '1');
      client.abort();
      await Promise.all([first, second]);
      await waitFor(() => server.load.running === 0 && server.load.queued === 0);
    } finally {
      await server.close();
    }
  });

  it('lets a queued rollout whose client hangs up leave the queue at once: the next one is queued, not refused', async () => {
    const server = agentServer({ concurrency: 1, maxQueued: 1, runTimeoutMs: 60_000 });
    await server.start();
    const [holder, leaver, next] = [new AbortController(), new AbortController(), new AbortController()];
    try {
      const asked = once(policyEvents, 'hang');
      const first = post(server.url, '/run', row('hang'), { signal: holder.signal }).catch(() => undefined);
      await asked;
      const second = post(server.url, '/run', row('hang'), { signal: leaver.signal }).catch(() => undefined);
      await waitFor(() => server.load.queued === 1);
      leaver.abort();
      await second;
      // While the first rollout still runs: the place the second held is free now, not when its turn would have come.
      await waitFor(() => server.load.queued === 0);
      const third = post(server.url, '/run', row('hang'), { signal: next.signal }).then(
        (reply) => reply.status,
        () => undefined,
      );
      await waitFor(() => server.load.queued === 1);
      assert.equal(server.load.running, 1);
      holder.abort();
      next.abort();
      await Promise.all([first, third]);
      await waitFor(() => server.load.running === 0 && server.load.queued === 0);
    } finally {
      await server.close();
    }
  });
});

/**
 * Polls the server's load until `condition` holds. The bound is generous on a loaded machine and far
 * short of the minute a hung rollout would take, or the server's deadline for it.
 */
async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
