import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import type { JsonServer } from '../../src/servers/http-server/json-server.js';
import { defineResourcesServer } from '../../src/servers/resources/define-resources-server.js';
import { defineGymnasiumServer } from '../../src/servers/resources/define-gymnasium-server.js';
import { JudgeError } from '../../src/servers/resources/judge-error.js';
import { defineTool } from '../../src/servers/resources/resources-tool.js';
import { actionText, assistantText } from '../../src/servers/resources/response-text.js';

/** A Responses-API response whose output is one assistant message, as a model server returns it. */
const says = (text: string) => ({
  id: 'resp_1',
  object: 'response',
  output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
  usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
});

/** A client that carries the session cookie as NeMo Gym's simple_agent does: taken from /seed_session, sent on every later call. */
function agent(url: string, apiKey = 'k') {
  let cookie: string | undefined;
  return async (path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const set = response.headers.get('set-cookie');
    if (set && path === '/seed_session') cookie = set.split(';')[0];
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, setCookie: set };
  };
}

const counter = defineResourcesServer<{ count: number }, { initial_count: number; expected_count: number; judge_down?: boolean; split?: boolean }>({
  name: 'counter',
  className: 'StatefulCounterResourcesServer',
  initialState: () => ({ count: 0 }),
  rowSchema: z.object({ initial_count: z.number().int(), expected_count: z.number().int(), judge_down: z.boolean().optional(), split: z.boolean().optional() }),
  seedSession: (body, session) => {
    session.state.count = body.initial_count;
  },
  tools: {
    increment_counter: defineTool({
      description: 'add to the counter',
      parameters: z.object({ count: z.number().int() }),
      handler: ({ count }, session: { state: { count: number } }) => {
        session.state.count += count;
        return { success: true };
      },
    }),
    get_counter_value: defineTool({ parameters: z.object({}), handler: (_args, session: { state: { count: number } }) => ({ count: session.state.count }) }),
  },
  verify: (body, session) => {
    if (body.judge_down) throw new JudgeError('the judge timed out');
    const reward = session.state.count === body.expected_count ? 1 : 0;
    return body.split ? { reward, reward_components: { right: reward, bonus: 0.5 } } : { reward, counted: session.state.count };
  },
});

const row = { responses_create_params: { input: [{ role: 'user', content: 'add 1 then add 2' }] }, initial_count: 3, expected_count: 6 };

describe('defineResourcesServer: a NeMo Gym resources server from tools and a verifier', () => {
  let server: JsonServer;
  before(async () => {
    server = counter.createServer({ apiKey: 'k' });
    await server.start();
  });
  after(() => server.close());

  it('names its cookie "<ClassName>___<name>" and sets it on /seed_session, which answers {}', async () => {
    const seeded = await agent(server.url)('/seed_session', row);
    assert.equal(seeded.status, 200);
    assert.deepEqual(seeded.body, {});
    assert.match(seeded.setCookie ?? '', /^StatefulCounterResourcesServer___counter=[0-9a-f-]{36}; path=\/;.*httponly/);
  });

  it('gives tools the session that seed_session started, and two sessions never mix', async () => {
    const [a, b] = [agent(server.url), agent(server.url)];
    await a('/seed_session', row);
    await b('/seed_session', { ...row, initial_count: 100 });
    assert.deepEqual((await a('/increment_counter', { count: 1 })).body, { success: true });
    await a('/increment_counter', { count: 2 });
    assert.deepEqual((await a('/get_counter_value', {})).body, { count: 6 });
    assert.deepEqual((await b('/get_counter_value', {})).body, { count: 100 });
  });

  it('answers bad tool arguments with 422 and FastAPI-style detail (the model reads the raw body)', async () => {
    const a = agent(server.url);
    await a('/seed_session', row);
    const bad = await a('/increment_counter', { count: 'two' });
    assert.equal(bad.status, 422);
    const detail = bad.body.detail as { loc: unknown[]; msg: string }[];
    assert.deepEqual(detail[0]!.loc, ['body', 'count']);
    assert.equal((await a('/no_such_tool', {})).status, 404);
  });

  it('verifies by echoing the whole body with the reward and the verifier fields', async () => {
    const a = agent(server.url);
    await a('/seed_session', row);
    await a('/increment_counter', { count: 3 });
    const body = { ...row, response: says('the count is 6') };
    const verified = await a('/verify', body);
    assert.equal(verified.status, 200);
    assert.deepEqual(verified.body, { ...body, reward: 1, counted: 6 });
    assert.equal((await agent(server.url)('/verify', { ...row })).status, 422, 'a verify body needs the response');
  });

  it('turns a JudgeError into reward 0 marked judge_failed (the failsafe), not a crash', async () => {
    const verified = await agent(server.url)('/verify', { ...row, judge_down: true, response: says('6') });
    assert.equal(verified.status, 200);
    assert.equal(verified.body.reward, 0);
    assert.equal(verified.body._ng_failure_class, 'judge_failed');
    assert.equal(verified.body._ng_failure_judge_error, 'the judge timed out');
  });

  it('refuses reward components that do not add up to the reward (500)', async () => {
    assert.equal((await agent(server.url)('/verify', { ...row, split: true, response: says('6') })).status, 500);
  });

  it('aggregates verify responses into NeMo Gym AggregateMetrics', async () => {
    const responses = [0, 1, 2].map((r) => ({
      _ng_task_index: 0,
      _ng_rollout_index: r,
      reward: r === 2 ? 0 : 1,
      response: { usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } },
    }));
    const aggregate = await agent(server.url)('/aggregate_metrics', { verify_responses: responses });
    assert.equal(aggregate.status, 200);
    assert.deepEqual(Object.keys(aggregate.body).sort(), ['agent_metrics', 'group_level_metrics', 'key_metrics']);
    const agentMetrics = aggregate.body.agent_metrics as Record<string, number>;
    assert.equal(agentMetrics['mean/reward'], 2 / 3);
    assert.equal(agentMetrics['mean/input_tokens'], 10);
    const [group] = aggregate.body.group_level_metrics as Record<string, unknown>[];
    assert.equal(group!.num_rollouts, 3);
    assert.deepEqual(group!.sample, { agent_ref: { name: 'agent' } });
    assert.equal((aggregate.body.key_metrics as Record<string, number>)['mean/reward'], 2 / 3);
  });

  it('answers a malformed or repeated verify response with a 422 naming it, as FastAPI does, not a 500', async () => {
    const malformed = await agent(server.url)('/aggregate_metrics', { verify_responses: [{ reward: 'high' }] });
    assert.equal(malformed.status, 422);
    assert.deepEqual((malformed.body.detail as { loc: unknown[] }[])[0]!.loc, ['body', 'verify_responses', 0, 'reward']);
    const twice = await agent(server.url)('/aggregate_metrics', { verify_responses: [{ reward: 1 }, { reward: 0 }] });
    assert.equal(twice.status, 422);
    const [detail] = twice.body.detail as { loc: unknown[]; msg: string }[];
    assert.deepEqual(detail!.loc, ['body', 'verify_responses', 1, '_ng_rollout_index']);
    assert.match(detail!.msg, /rollout 0:0 .*verify_responses\[0\]/);
  });

  it('says whether it can reverify: a stateful server cannot', async () => {
    assert.equal((await agent(server.url)('/reverify_mode')).body, 'unsupported');
  });

  it('refuses a request without the bearer token', async () => {
    assert.equal((await agent(server.url, 'wrong')('/seed_session', row)).status, 401);
  });

  it('describes its tools as Responses-API function tools (JSON schema from zod)', () => {
    assert.deepEqual(counter.tools[0], {
      type: 'function',
      name: 'increment_counter',
      description: 'add to the counter',
      parameters: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'], additionalProperties: false },
      strict: true,
    });
  });
});

describe('defineGymnasiumServer: reset and step with per-session state', () => {
  const guess = defineGymnasiumServer<{ secret: number; tries: number }>({
    name: 'guess',
    initialState: () => ({ secret: 0, tries: 0 }),
    reset: (body, session) => {
      session.state = { secret: Number(body.secret), tries: 0 };
      return { observation: 'guess a number' };
    },
    step: (body, session) => {
      session.state.tries += 1;
      const right = Number(actionText(body.response)) === session.state.secret;
      return right ? { observation: null, reward: 1, terminated: true, info: { tries: session.state.tries } } : { observation: 'no', reward: 0 };
    },
  });
  let server: JsonServer;
  before(async () => {
    server = guess.createServer({ apiKey: 'k' });
    await server.start();
  });
  after(() => server.close());

  it('plays one episode per session: reset → step until terminated', async () => {
    const [a, b] = [agent(server.url), agent(server.url)];
    await a('/seed_session', {});
    await b('/seed_session', {});
    const base = { responses_create_params: { input: [] } };
    assert.deepEqual((await a('/reset', { ...base, secret: 7 })).body, { observation: 'guess a number', info: {} });
    await b('/reset', { ...base, secret: 3 });
    assert.deepEqual((await a('/step', { ...base, response: says('3') })).body, {
      observation: 'no',
      reward: 0,
      terminated: false,
      truncated: false,
      info: {},
    });
    assert.deepEqual((await a('/step', { ...base, response: says('7') })).body, {
      observation: null,
      reward: 1,
      terminated: true,
      truncated: false,
      info: { tries: 2 },
    });
    assert.equal((await b('/step', { ...base, response: says('3') })).body.reward, 1);
    assert.deepEqual((await a('/close', {})).body, {});
  });
});

describe('response text as NeMo Gym verifiers read it', () => {
  it('joins assistant texts by newlines (verifiers) and every output_text by nothing (gymnasium actions)', () => {
    const response = { output: [{ type: 'function_call', name: 'f', arguments: '{}' }, says('a ').output[0], says('b').output[0]] };
    assert.equal(assistantText(response), 'a \nb');
    assert.equal(actionText(response), 'a b');
  });
});
