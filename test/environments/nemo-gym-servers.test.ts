import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { hasKind, ReportedFailureError, StepResult, type Message } from '../../src/core/index.js';
import { responsesInputToMessages } from '../../src/core/responses-items.js';
import {
  nemoGymGymnasiumEnvironment,
  nemoGymResourcesEnvironment,
  withSetCookies,
  type EnvironmentTurn,
  type GymnasiumServerEpisode,
  type NemoGymServerEnvironment,
  type ResourcesEpisode,
} from '../../src/environments/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';
import { startPythonResourcesServer, type PythonResourcesServer } from '../support/python-resources-server.js';

const fixtures = new URL('../fixtures/nemo-gym/', import.meta.url);
const readRows = (path: string) =>
  readFileSync(new URL(path, fixtures), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const counterRows = readRows('example_session_state_mgmt/example.jsonl');
const gymnasiumRows = readRows('example_multi_turn_gymnasium/example.jsonl');
const signal = new AbortController().signal;

/** A row as collect materializes it: the dataset row, an agent and its keys. */
const materialized = (row: Record<string, unknown>, task: number, extra: Record<string, unknown> = {}) => ({
  ...row,
  agent_ref: { name: 'counter' },
  _ng_task_index: task,
  _ng_rollout_index: 0,
  ...extra,
});
const call = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
const promptOf = (row: Record<string, unknown>) => responsesInputToMessages((row.responses_create_params as { input: never }).input);

/** An episode driven by hand: the conversation grows as the engine grows it, and every step gets the row. */
class Episode<Metadata> {
  messages: Message[];
  metadata!: Metadata;
  assistantTurns = 0;

  constructor(
    readonly environment: NemoGymServerEnvironment<Metadata>,
    readonly row: Record<string, unknown>,
  ) {
    this.messages = promptOf(row);
  }

  async reset() {
    const reset = await this.environment.reset(this.row, signal);
    this.metadata = reset.metadata;
    this.messages.push(...(reset.observation ?? []));
    return reset;
  }

  async say(content: string, turn: Partial<EnvironmentTurn<Metadata>> = {}) {
    this.messages.push({ role: 'assistant', content });
    this.assistantTurns += 1;
    const usage = { input_tokens: 100 * this.assistantTurns, output_tokens: 10 * this.assistantTurns, total_tokens: 110 * this.assistantTurns };
    const result = StepResult.parse(
      await this.environment.step({ messages: [...this.messages], metadata: this.metadata, data: this.row, usage, final: false, ...turn }, signal),
    );
    this.messages.push(...result.observation);
    if (result.metadata) this.metadata = result.metadata as Metadata;
    return result;
  }
}

describe('a NeMo Gym resources server, driven by gymnast (Python stand-in on loopback)', () => {
  let server: PythonResourcesServer;
  let environment: NemoGymServerEnvironment<ResourcesEpisode>;
  before(async () => {
    server = await startPythonResourcesServer({ name: 'counter' });
    environment = nemoGymResourcesEnvironment({ name: 'counter', urls: [server.url], timeoutMs: 5_000 });
  });
  after(async () => {
    await environment.close();
    await server.close();
  });

  it('seeds a session with the whole row and keeps the session cookie NeMo Gym names <ClassName>___<server>', async () => {
    const episode = new Episode(environment, materialized(counterRows[0]!, 0));
    await episode.reset();
    assert.deepEqual(Object.keys(episode.metadata.cookies), ['StatefulCounterResourcesServer___counter']);
    assert.equal(episode.metadata.prompt_messages, 1);
    assert.doesNotThrow(() => JSON.stringify(episode.metadata), 'the episode state is JSON');
  });

  it('posts each tool call with the session cookie and answers with the body text, under the call id the record shows', async () => {
    const episode = new Episode(environment, materialized(counterRows[0]!, 0));
    await episode.reset();
    const calls = await episode.say(`I will add.\n${call('increment_counter', { count: 1 })}\n${call('increment_counter', { count: 2 })}`);
    assert.equal(calls.terminated, false);
    assert.deepEqual(
      calls.observation.map((message) => [message.role, message.tool_call_id, message.content]),
      [
        ['tool', 'call_0_0', '{"success": true}'],
        ['tool', 'call_0_1', '{"success": true}'],
      ],
    );
    assert.deepEqual(
      calls.tool_calls?.map((toolCall) => [toolCall.id, toolCall.function.name, toolCall.function.arguments]),
      [
        ['call_0_0', 'increment_counter', '{"count":1}'],
        ['call_0_1', 'increment_counter', '{"count":2}'],
      ],
    );
    const count = await episode.say(call('get_counter_value', {}));
    assert.deepEqual(
      count.observation.map((message) => [message.tool_call_id, message.content]),
      [['call_1_0', '{"count": 6}']],
      'the counter seeded at 3 is this session’s',
    );
  });

  it('keeps sessions apart: another episode’s counter, and no counter at all without the cookie', async () => {
    const first = new Episode(environment, materialized(counterRows[0]!, 0));
    const second = new Episode(environment, materialized(counterRows[1]!, 1));
    await first.reset();
    await second.reset();
    await first.say(call('increment_counter', { count: 100 }));
    const seen = await second.say(call('get_counter_value', {}));
    assert.equal(seen.observation[0]!.content, '{"count": 6}', 'initial_count 6, untouched by the other episode');
    const cookieless = await first.say(call('get_counter_value', {}), { metadata: { ...first.metadata, cookies: {} } });
    assert.equal(cookieless.observation[0]!.content, '{"count": 0}', 'a call without the cookie lands in a fresh session');
  });

  it('answers malformed calls without calling, and passes a tool’s error status body to the model as NeMo Gym does', async () => {
    const episode = new Episode(environment, materialized(counterRows[0]!, 0));
    await episode.reset();
    const result = await episode.say(
      `<tool_call>{"name": "increment_counter", "arguments": {"count": }}</tool_call>${call('increment_counter', { count: 'one' })}${call('verify', {})}`,
    );
    const [invalid, rejected, protocol] = result.observation.map((message) => JSON.parse(message.content) as Record<string, unknown>);
    assert.match(String(invalid!.error), /^Invalid tool call arguments: /);
    assert.deepEqual((rejected!.detail as { loc: string[] }[])[0]!.loc, ['body', 'count'], 'the 422 body, as the server wrote it');
    assert.deepEqual(protocol, { error: 'verify is not a tool' });
    assert.deepEqual(
      result.tool_calls?.map((toolCall) => toolCall.function.name),
      ['increment_counter', 'increment_counter', 'verify'],
    );
  });

  it('verifies a turn without tool calls: the reward is the verifier’s, and what it added is reported', async () => {
    const episode = new Episode(environment, materialized(counterRows[0]!, 0));
    await episode.reset();
    await episode.say(`${call('increment_counter', { count: 1 })}${call('increment_counter', { count: 2 })}`);
    const verdict = await episode.say('<think>\nThe counter is 6.\n</think>\n\nThe count is 6.');
    assert.deepEqual([verdict.reward, verdict.terminated, verdict.answer], [1, true, '6']);
    assert.deepEqual(verdict.fields, { counter: 6, info: { session_seeded: true } }, 'the echoed request is not reported, the added fields are');
    assert.deepEqual(verdict.observation, []);
  });

  it('runs the calls of a final turn, then verifies as it stands (NeMo Gym verifies a rollout its step limit cut)', async () => {
    const episode = new Episode(environment, materialized(counterRows[0]!, 0));
    await episode.reset();
    const verdict = await episode.say(`${call('increment_counter', { count: 3 })}`, { final: true });
    assert.equal(verdict.terminated, false, 'the model did not end it: the limit does, and the row says truncated');
    assert.equal(verdict.reward, 1, '3 + 3 = 6 was verified after the call ran');
    assert.equal(verdict.observation[0]!.tool_call_id, 'call_0_0');
  });

  it('turns a judge failure into a failure with what the verifier said, never a reward', async () => {
    const episode = new Episode(environment, materialized(counterRows[0]!, 0, { judge: 'fail' }));
    await episode.reset();
    await assert.rejects(episode.say('The count is 6.'), (error: unknown) => {
      assert.ok(error instanceof ReportedFailureError && hasKind(error, 'environment'));
      assert.match(error.message, /judge_failed: the judge answered neither/);
      assert.equal(error.fields._ng_failure_class, 'judge_failed');
      assert.ok(!('reward' in error.fields));
      return true;
    });
  });

  it('fails typed on a server that errors or answers garbage, retrying only what may pass', async () => {
    const before = await server.calls();
    const seed = new Episode(environment, materialized(counterRows[0]!, 0, { fault: 'seed_500' }));
    await assert.rejects(seed.reset(), (error: unknown) => hasKind(error, 'server') && error.status === 500);
    assert.equal((await server.calls())['/seed_session']! - (before['/seed_session'] ?? 0), 3, 'a 500 is retried up to 3 attempts');

    for (const [fault, message] of [
      ['verify_garbage', /answered with a body that is not JSON: "<html>/],
      ['verify_shape', /unexpected body: reward: missing/],
    ] as const) {
      const episode = new Episode(environment, materialized(counterRows[0]!, 0, { fault }));
      await episode.reset();
      await assert.rejects(episode.say('The count is 3.'), (error: unknown) => hasKind(error, 'environment') && message.test(error.message));
    }
    const verifies = (await server.calls())['/verify']! - (before['/verify'] ?? 0);
    assert.equal(verifies, 2, 'garbage is not retried');
  });

  it('keeps cookies as a browser does: set, replaced, deleted when expired', () => {
    const jar = withSetCookies({}, ['a=1; path=/; httponly', 'b=2']);
    assert.deepEqual(withSetCookies(jar, ['a=3', 'b=; Max-Age=0']), { a: '3' });
    assert.deepEqual(withSetCookies(jar, 'b=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT'), { a: '1' });
  });
});

describe('a NeMo Gym gymnasium server, driven by gymnast (Python stand-in on loopback)', () => {
  let server: PythonResourcesServer;
  let environment: NemoGymServerEnvironment<GymnasiumServerEpisode>;
  before(async () => {
    server = await startPythonResourcesServer({ kind: 'gymnasium', name: 'example_multi_turn_gymnasium' });
    environment = nemoGymGymnasiumEnvironment({ name: 'multi-turn', urls: [server.url], timeoutMs: 5_000 });
  });
  after(async () => {
    await environment.close();
    await server.close();
  });

  it('resets, shows each observation as a user turn, answers function calls from info.tool_outputs, and closes when the game ends', async () => {
    const episode = new Episode(environment, materialized(gymnasiumRows[1]!, 1));
    const reset = await episode.reset();
    assert.deepEqual(reset.observation, [], 'a null observation adds no turn');
    assert.equal(episode.metadata.explicit_close, true);

    const looked = await episode.say(call('lookup', { query: '15*8' }));
    assert.deepEqual(looked.observation, [{ role: 'tool', content: '{"result": "looked up 15*8"}', tool_call_id: 'call_0_0' }]);
    assert.equal(looked.tool_calls?.[0]?.id, 'call_0_0');

    const followUp = await episode.say('15 multiplied by 8 is 120.');
    assert.deepEqual([followUp.reward, followUp.terminated], [0, false]);
    assert.deepEqual(followUp.observation, [{ role: 'user', content: 'Now divide that result by 6.' }]);
    assert.deepEqual(followUp.fields, { info: { output_tokens: 10 } }, 'each step is sent its own turn’s usage');

    const closesBefore = (await server.calls())['/close'] ?? 0;
    const end = await episode.say('120 / 6 = 20');
    assert.deepEqual([end.reward, end.terminated, end.truncated], [1, true, false]);
    assert.deepEqual(end.fields, { info: { output_tokens: 10, answer_found: true } });
    assert.equal((await server.calls())['/close'], closesBefore + 1, 'the server asked for /close with supports_explicit_close');
  });

  it('ends the server’s episode with /close when gymnast’s ends first (here a failed generation), as NeMo Gym’s agent closes in a finally; once', async () => {
    const failing = new ScriptedPolicy({ tokenizer, script: () => ({ error: new Error('upstream 503') }) });
    const closesBefore = (await server.calls())['/close'] ?? 0;
    const record = await runEpisode(task(0, { data: materialized(gymnasiumRows[1]!, 1) }), 0, episodeOptions(failing, environment));
    assert.equal(record.record_type, 'failure');
    assert.equal((await server.calls())['/close'], closesBefore + 1);

    const finishing = new ScriptedPolicy({ tokenizer, script: () => ({ text: '120 / 6 = 20' }) });
    const before = (await server.calls())['/close'] ?? 0;
    const done = await runEpisode(task(0, { data: materialized(gymnasiumRows[1]!, 1) }), 0, episodeOptions(finishing, environment, { maxTurns: 1 }));
    assert.equal(done.record_type, 'rollout');
    assert.equal((await server.calls())['/close'], before + 1, 'closed by its last step, not a second time by release');
  });

  it('shows a non-empty reset observation as the first user turn', async () => {
    const episode = new Episode(environment, materialized({ ...gymnasiumRows[1]!, opening_observation: 'Ready.' }, 1));
    const reset = await episode.reset();
    assert.deepEqual(reset.observation, [{ role: 'user', content: 'Ready.' }]);
    assert.equal(episode.metadata.prompt_messages, 2, 'the reset observation is part of the prompt, not the response');
  });
});
