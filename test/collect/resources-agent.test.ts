import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readFullRow, type Message } from '../../src/core/index.js';
import { resourcesServerFor } from '../../src/servers/resources/resources-server-for.js';
import type { InferenceServer, Responder } from '../../src/testing/index.js';
import { qwen3Tokenizer, qwen3Directory } from '../support/qwen3.js';
import { startServers } from '../support/loopback-model.js';
import { startPythonResourcesServer, type PythonResourcesServer } from '../support/python-resources-server.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/gymnast.js');
const fixture = (path: string) =>
  readFileSync(new URL(`../fixtures/nemo-gym/${path}`, import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const readJsonl = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/**
 * A model that uses the counter tools as the session-state example asks ("add a then add b then get
 * the count"): both increments in one turn, then the read, then the answer it read. Asked anything
 * else (the gymnasium rows), it names every expected answer at once.
 */
const counterUser: Responder = ({ text }) => {
  const ask = [...text.matchAll(/<\|im_start\|>user\nadd (\d+) then add (\d+) then get the count/g)].at(-1);
  if (!ask) return 'Eiffel, 20, 95, 1991 and 2.';
  const answered = text.split('<tool_response>').length - 1;
  const callOf = (name: string, args: Record<string, number>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
  if (answered === 0) return `${callOf('increment_counter', { count: Number(ask[1]) })}\n${callOf('increment_counter', { count: Number(ask[2]) })}`;
  if (answered === 2) return callOf('get_counter_value', {});
  return `The count is ${/"count": (\d+)/.exec(text.slice(text.lastIndexOf('<tool_response>')))?.[1]}.`;
};

/** A server that answers every request with an HTML error page, status 200. */
function startJunkServer(): Promise<Server> {
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>'));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Aggregate {
  agent_ref: { name: string };
  computed_by: 'server' | 'gymnast';
  agent_metrics: Record<string, number>;
  key_metrics: Record<string, number>;
  group_level_metrics: Record<string, unknown>[];
}

describe('gymnast collect against NeMo Gym resources servers (--resources-server, --gymnasium-server)', () => {
  let model: InferenceServer;
  let counter: PythonResourcesServer;
  let counterWithoutAggregate: PythonResourcesServer;
  let gymnasium: PythonResourcesServer;
  let junk: Server;
  let junkUrl: string;
  before(async () => {
    model = (await startServers(1, { respond: counterUser }))[0]!;
    [counter, counterWithoutAggregate, gymnasium, junk] = await Promise.all([
      startPythonResourcesServer({ name: 'counter' }),
      startPythonResourcesServer({ name: 'counter', noAggregate: true }),
      startPythonResourcesServer({ kind: 'gymnasium', name: 'example_multi_turn_gymnasium' }),
      startJunkServer(),
    ]);
    junkUrl = `http://127.0.0.1:${(junk.address() as AddressInfo).port}`;
  });
  after(async () => {
    await Promise.all([model.close(), counter.close(), counterWithoutAggregate.close(), gymnasium.close(), new Promise((resolve) => junk.close(resolve))]);
  });

  /** The session-state rows as NeMo Gym ships them, a judge that fails, servers that misbehave, and the gymnasium rows. */
  function writeInput(dir: string): string {
    const counterRows = fixture('example_session_state_mgmt/example.jsonl').map((row) => ({ ...row, agent_ref: { name: 'counter' } }));
    const rows = [
      ...counterRows,
      { ...counterRows[0]!, judge: 'fail' },
      { ...counterRows[1]!, fault: 'verify_garbage' },
      { ...counterRows[2]!, fault: 'seed_500' },
      { ...counterRows[3]!, agent_ref: { name: 'junk' } },
      ...fixture('example_multi_turn_gymnasium/example.jsonl').slice(0, 2),
    ];
    const input = join(dir, 'input.jsonl');
    writeFileSync(input, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
    return input;
  }

  async function collect(counterUrl: string, extra: readonly string[] = []) {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-resources-'));
    const output = join(dir, 'rollouts.jsonl');
    const args = [
      'collect',
      '--input',
      writeInput(dir),
      '--output',
      output,
      '--policy',
      'vllm-completions',
      '--base-url',
      model.url,
      '--tokenizer',
      qwen3Directory,
      '--resources-server',
      `counter=${counterUrl}`,
      '--resources-server',
      `junk=${junkUrl}`,
      '--gymnasium-server',
      `example_multi_turn_gymnasium_agent=${gymnasium.url}`,
      '--max-tokens',
      '96',
      '--max-turns',
      '6',
      '--max-seq-len',
      '8192',
      '--seed',
      '1',
      '--request-attempts',
      '2',
      '--concurrency',
      '4',
      // Four rows fail on purpose (a failed judge, a garbage verifier, a server error, a junk server).
      '--max-unhealthy',
      '4',
      '--fail-on-error',
      '4',
      ...extra,
    ];
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { timeout: 120_000 });
    return {
      stdout,
      stderr,
      results: readJsonl(output),
      failures: readJsonl(output.replace('.jsonl', '_failures.jsonl')),
      aggregates: JSON.parse(readFileSync(output.replace('.jsonl', '_aggregate_metrics.json'), 'utf8')) as Aggregate[],
    };
  }

  let first: Awaited<ReturnType<typeof collect>>;
  before(async () => {
    first = await collect(counter.url);
  });

  const counterResults = () => first.results.filter((row) => (row.agent_ref as { name: string }).name === 'counter');

  it('runs every session-state row to the verifier’s reward: the cookies carried each session’s counter from seed to verify', () => {
    const rewards = counterResults().map((row) => [row.expected_count, row.reward]);
    assert.deepEqual(
      rewards.sort((a, b) => Number(a[0]) - Number(b[0])),
      [
        [6, 1],
        [15, 1],
        [24, 1],
        [33, 1],
        [42, 1],
      ],
    );
  });

  it('keeps the exact tokens: every sampled turn’s ids and logprobs, tool messages with their call ids on the ledger, no drift', async () => {
    const tokenizer = await qwen3Tokenizer();
    for (const [i, row] of counterResults().entries()) {
      // As gymnast's readers read the row: the ids it stores once, on response.output, back on the messages.
      const messages = readFullRow(row, `rollouts.jsonl:${i + 1}`).row.messages as Message[];
      assert.equal(row.has_training_tokens, true);
      assert.equal(row.token_drift_count, 0);
      assert.deepEqual(
        messages.map((message) => message.role),
        ['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant'],
      );
      assert.deepEqual(
        messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id),
        ['call_0_0', 'call_0_1', 'call_1_0'],
      );
      const [firstTurn, , , readTurn] = messages.slice(1);
      assert.deepEqual(
        firstTurn!.tool_calls!.map((call) => [call.id, call.function.name]),
        [
          ['call_0_0', 'increment_counter'],
          ['call_0_1', 'increment_counter'],
        ],
        'the calls, structured, on the turn that made them',
      );
      assert.match(firstTurn!.content, /^<tool_call>/, 'the sampled text is kept as sampled');
      assert.equal(readTurn!.tool_calls![0]!.function.name, 'get_counter_value');
      for (const message of messages.filter((message) => message.role === 'assistant'))
        assert.equal(message.generation_logprobs!.length, message.token_ids!.length);
      const sequence = tokenizer.decode(messages.flatMap((message) => message.token_ids ?? []));
      assert.match(
        sequence,
        /<tool_response>\n\{"success": true\}\n<\/tool_response>\n<tool_response>\n\{"success": true\}\n<\/tool_response>/,
        'tool answers rendered by the chat template onto the sequence',
      );
      assert.equal(row.num_turns, 3);
    }
  });

  it('writes NeMo Gym’s row: function calls and their outputs in response.output, usage, and the verifier’s fields at the top level', () => {
    const row = counterResults().find((candidate) => candidate.expected_count === 6)!;
    const output = (row.response as { output: Record<string, unknown>[] }).output;
    assert.deepEqual(
      output.map((item) => item.type),
      ['function_call', 'function_call', 'function_call_output', 'function_call_output', 'function_call', 'function_call_output', 'message'],
    );
    assert.deepEqual(
      output.filter((item) => item.type === 'function_call').map((item) => [item.call_id, item.arguments]),
      [
        ['call_0_0', '{"count":1}'],
        ['call_0_1', '{"count":2}'],
        ['call_1_0', '{}'],
      ],
    );
    assert.deepEqual((output.at(-1)!.content as { text: string }[])[0]!.text, 'The count is 6.');
    const usage = (row.response as { usage: Record<string, number> }).usage;
    assert.equal(usage.total_tokens, usage.input_tokens! + usage.output_tokens!);
    assert.deepEqual([row.counter, row.info, row.extracted_answer], [6, { session_seeded: true }, '6']);
    assert.deepEqual(
      [row.initial_count, row._ng_task_index, (row.agent_ref as { name: string }).name],
      [3, 0, 'counter'],
      'the row’s own fields and keys, not the echo’s',
    );
  });

  it('never writes a session cookie (the server’s credential for the session) into a row or the sidecar, success or failure', () => {
    const rows = [...first.results, ...first.failures];
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.ok(!JSON.stringify(row).includes('___'), `no <ClassName>___<server> cookie in ${JSON.stringify(row.env_metadata)}`);
      if (row.env_metadata !== null && row.env_metadata !== undefined) assert.ok(!('cookies' in (row.env_metadata as object)));
    }
    assert.ok(
      counterResults().every((row) => (row.env_metadata as { prompt_messages?: number }).prompt_messages === 1),
      'the rest of the metadata is kept',
    );
  });

  it('puts a failed judge, a garbage verifier, a server error and a junk server in the sidecar, typed, never with a reward', () => {
    const failures = first.failures.map(
      (row): Record<string, unknown> => ({ ...row, why: row.judge ?? row.fault ?? (row.agent_ref as { name: string }).name }),
    );
    assert.deepEqual(failures.map((row) => [row.why, row._ng_failure_class]).sort(), [
      ['fail', 'env-error'],
      ['junk', 'env-error'],
      ['seed_500', 'env-error'],
      ['verify_garbage', 'env-error'],
    ]);
    assert.ok(failures.every((row) => !('reward' in row)));
    const judged = failures.find((row) => row.why === 'fail')!;
    assert.equal(judged.nemo_gym_failure_class, 'judge_failed');
    assert.match(String(judged._ng_failure_judge_error), /neither/);
    const message = (why: string) => (failures.find((row) => row.why === why)!.error as { message: string }).message;
    assert.match(message('verify_garbage'), /not JSON/);
    assert.match(message('seed_500'), /HTTP 500/);
    assert.match(message('junk'), /\/seed_session answered with a body that is not JSON: "<html>/);
    assert.equal(first.results.length + first.failures.length, 11, 'every planned rollout once');
  });

  it('runs gymnasium rows through /reset and /step: follow-ups as user turns, the final reward, info at the top level', () => {
    const rows = first.results.filter((row) => (row.agent_ref as { name: string }).name === 'example_multi_turn_gymnasium_agent');
    assert.equal(rows.length, 2);
    for (const row of rows) {
      const messages = row.messages as Message[];
      const followUps = row.follow_ups as string[];
      assert.deepEqual(
        messages
          .filter((message) => message.role === 'user')
          .slice(1)
          .map((message) => message.content),
        followUps,
      );
      assert.deepEqual([row.reward, row.terminated, row.truncated, (row.info as { answer_found: boolean }).answer_found], [1, true, false, true]);
    }
  });

  it('asks each server for its aggregate metrics over the stripped persisted successes, and says who computed them', () => {
    const byName = new Map(first.aggregates.map((aggregate) => [aggregate.agent_ref.name, aggregate]));
    const fromServer = byName.get('counter')!;
    assert.equal(fromServer.computed_by, 'server');
    assert.equal(fromServer.agent_metrics['server/verify_responses'], 5, 'the persisted successes only');
    assert.equal(fromServer.agent_metrics['server/stripped'], 1, 'without responses_create_params, and response.usage only');
    assert.equal(fromServer.key_metrics['mean/reward'], 1);
    assert.equal(fromServer.group_level_metrics.length, 5);
    assert.equal(byName.get('junk')!.computed_by, 'gymnast', 'no successes to send');
    assert.match(first.stderr, /counter: aggregate metrics computed by its server's \/aggregate_metrics/);
  });

  it('verifies a rollout that --max-turns cut, after running its last calls, as NeMo Gym verifies what its step limit cut', async () => {
    const cut = await collect(counter.url, ['--limit', '1', '--max-turns', '1']);
    const [row] = cut.results;
    assert.deepEqual(
      [row!.reward, (row!.termination as { kind: string }).kind, row!.truncated, row!.terminated],
      [1, 'max-turns', true, false],
      '3 + 1 + 2 = 6 without reading it back',
    );
    assert.deepEqual(
      (row!.messages as Message[]).map((message) => message.role),
      ['user', 'assistant', 'tool', 'tool'],
    );
  });

  it('runs the same rows against gymnast serve resources (its ports of the two NeMo Gym examples) with the same rewards', async () => {
    const ported = resourcesServerFor('example_session_state_mgmt', { port: 0 })!;
    const portedGymnasium = resourcesServerFor('example_multi_turn_gymnasium', { port: 0 })!;
    const [counterUrl, gymnasiumUrl] = await Promise.all([ported.start(), portedGymnasium.start()]);
    try {
      const dir = mkdtempSync(join(tmpdir(), 'gymnast-resources-ported-'));
      const input = join(dir, 'input.jsonl');
      const rows = [
        ...fixture('example_session_state_mgmt/example.jsonl').map((row) => ({ ...row, agent_ref: { name: 'counter' } })),
        ...fixture('example_multi_turn_gymnasium/example.jsonl').slice(0, 2),
      ];
      writeFileSync(input, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
      const output = join(dir, 'rollouts.jsonl');
      await run(
        process.execPath,
        [
          bin,
          'collect',
          '--input',
          input,
          '--output',
          output,
          '--policy',
          'vllm-completions',
          '--base-url',
          model.url,
          '--tokenizer',
          qwen3Directory,
          '--resources-server',
          `counter=${counterUrl}`,
          '--gymnasium-server',
          `example_multi_turn_gymnasium_agent=${gymnasiumUrl}`,
          '--max-tokens',
          '96',
          '--max-seq-len',
          '8192',
          '--seed',
          '1',
        ],
        { timeout: 120_000 },
      );
      const results = readJsonl(output);
      assert.deepEqual(
        results.map((row) => row.reward),
        [1, 1, 1, 1, 1, 1, 1],
      );
      const aggregates = JSON.parse(readFileSync(output.replace('.jsonl', '_aggregate_metrics.json'), 'utf8')) as Aggregate[];
      assert.deepEqual(aggregates.map((aggregate) => [aggregate.agent_ref.name, aggregate.computed_by]).sort(), [
        ['counter', 'server'],
        ['example_multi_turn_gymnasium_agent', 'server'],
      ]);
    } finally {
      await Promise.all([ported.close(), portedGymnasium.close()]);
    }
  });

  it('computes them itself when a server has no /aggregate_metrics (404), and says so', async () => {
    const second = await collect(counterWithoutAggregate.url);
    const aggregate = second.aggregates.find((candidate) => candidate.agent_ref.name === 'counter')!;
    assert.equal(aggregate.computed_by, 'gymnast');
    assert.equal(aggregate.key_metrics['mean/reward'], 1);
    assert.ok(!('server/verify_responses' in aggregate.agent_metrics));
    assert.match(second.stderr, /counter: its server has no \/aggregate_metrics \(404\): gymnast computed the aggregate metrics/);
  });
});
