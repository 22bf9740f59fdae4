import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { findEnvironment } from '../../src/environments/registry.js';
import { environmentResourcesServer } from '../../src/servers/resources/environment-resources-server.js';
import { exampleServers } from '../../src/servers/resources/examples/example-servers.js';
import { withServer } from '../support/with-server.js';

const fixtures = new URL('../fixtures/nemo-gym/', import.meta.url);
const rowsOf = (server: string) =>
  readFileSync(new URL(`${server}/example.jsonl`, fixtures), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const says = (text: string) => ({
  id: 'resp_1',
  object: 'response',
  output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
});

/** A NeMo Gym simple_agent's view of a server: the cookie from /seed_session goes on every later call. */
function agent(url: string) {
  let cookie: string | undefined;
  return async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
    if (path === '/seed_session') cookie = response.headers.get('set-cookie')?.split(';')[0];
    return (await response.json()) as Record<string, unknown>;
  };
}

describe('NeMo Gym examples ported onto the SDK, on their own example.jsonl rows', () => {
  it('example_single_tool_call: get_weather says it is cold, and every rollout scores 1', async () => {
    const definition = exampleServers.example_single_tool_call!.create();
    const [row] = rowsOf('example_single_tool_call');
    assert.deepEqual(
      definition.tools,
      (row!.responses_create_params as { tools: unknown[] }).tools.map((tool) => tool),
      "the tool list matches the dataset's",
    );
    await withServer(definition.createServer(), async (url) => {
      const call = agent(url);
      await call('/seed_session', row);
      assert.deepEqual(await call('/get_weather', { city: 'San Francisco' }), {
        city: 'San Francisco',
        weather_description: 'The weather in San Francisco is cold.',
      });
      assert.equal((await call('/verify', { ...row, response: says('It is cold in SF.') })).reward, 1);
    });
  });

  it('example_session_state_mgmt: counting to expected_count from initial_count scores 1, stopping short scores 0', async () => {
    const definition = exampleServers.example_session_state_mgmt!.create();
    assert.deepEqual(
      definition.tools,
      (rowsOf('example_session_state_mgmt')[0]!.responses_create_params as { tools: unknown[] }).tools,
      "the tool list matches the dataset's, as pydantic writes it",
    );
    await withServer(definition.createServer(), async (url) => {
      for (const row of rowsOf('example_session_state_mgmt')) {
        const [right, short] = [agent(url), agent(url)];
        const needed = (row.expected_count as number) - (row.initial_count as number);
        await right('/seed_session', row);
        await short('/seed_session', row);
        await right('/increment_counter', { count: needed });
        await short('/increment_counter', { count: needed - 1 });
        assert.deepEqual(await right('/get_counter_value', {}), { count: row.expected_count });
        assert.equal((await right('/verify', { ...row, response: says('done') })).reward, 1);
        assert.equal((await short('/verify', { ...row, response: says('done') })).reward, 0);
      }
    });
  });
});

describe('gymnast serve resources: built-in environments as resources servers', () => {
  it("math: /verify scores the response's assistant text and says what it extracted", async () => {
    await withServer(environmentResourcesServer(findEnvironment('math')!.create()), async (url) => {
      const row = { responses_create_params: { input: [{ role: 'user', content: 'What is 2+2?' }] }, expected_answer: '4' };
      const right = agent(url);
      await right('/seed_session', row);
      const verified = await right('/verify', { ...row, response: says('The answer is \\boxed{4}.') });
      assert.equal(verified.reward, 1);
      assert.equal(verified.extracted_answer, '4');
      assert.equal((await agent(url)('/verify', { ...row, response: says('\\boxed{5}') })).reward, 0, 'an unseeded session resets on verify');
    });
  });

  it("session-counter: its tools are endpoints on the session's episode, and verify checks the count", async () => {
    await withServer(environmentResourcesServer(findEnvironment('session-counter')!.create()), async (url) => {
      const row = { responses_create_params: { input: 'count' }, initial_count: 3, expected_count: 6 };
      const call = agent(url);
      await call('/seed_session', row);
      assert.deepEqual(await call('/increment_counter', { count: 3 }), { success: true });
      assert.deepEqual(await call('/get_counter_value', {}), { count: 6 });
      assert.equal((await call('/verify', { ...row, response: says('the count is 6') })).reward, 1);
    });
  });

  it('math through the gymnasium variant: /reset then /step ends the episode with the reward', async () => {
    await withServer(environmentResourcesServer(findEnvironment('math')!.create()), async (url) => {
      const row = { responses_create_params: { input: 'What is 3+4?' }, expected_answer: '7' };
      const call = agent(url);
      await call('/seed_session', {});
      assert.deepEqual(await call('/reset', row), { observation: null, info: {} });
      const stepped = await call('/step', { ...row, response: says('\\boxed{7}') });
      assert.equal(stepped.reward, 1);
      assert.equal(stepped.terminated, true);
    });
  });
});
