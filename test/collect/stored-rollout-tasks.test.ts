import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { aggregateFiles } from '../../src/collect/aggregate-files.js';
import type { AgentAggregate } from '../../src/metrics/index.js';
import { checkRunHealth } from '../../src/collect/health/check-run-health.js';
import type { HealthSummary } from '../../src/collect/health/health-summary.js';
import { filesBeside } from '../../src/collect/result-files.js';
import { AmbiguousTasksError } from '../../src/core/errors/ambiguous-tasks-error.js';

const fixture = (path: string) => new URL(`../fixtures/nemo-gym/${path}`, import.meta.url).pathname;
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
const jsonl = (rows: readonly unknown[]) => rows.map((row) => `${JSON.stringify(row)}\n`).join('');

/** A NeMo Gym example copied into a new folder (health writes its reports beside the file), its materialized inputs too when it has them. */
function copied(
  example: string,
  edit?: { rollouts?: (rows: Record<string, unknown>[]) => unknown[]; materialized?: (rows: Record<string, unknown>[]) => unknown[] },
): string {
  const directory = mkdtempSync(join(tmpdir(), `gymnast-stored-${basename(example)}-`));
  for (const [name, change] of [
    ['example_rollouts.jsonl', edit?.rollouts],
    ['example_rollouts_materialized_inputs.jsonl', edit?.materialized],
  ] as const) {
    const from = fixture(`${example}/${name}`);
    if (!existsSync(from)) continue;
    if (change) writeFileSync(join(directory, name), jsonl(change(lines(from).map((line) => JSON.parse(line) as Record<string, unknown>))));
    else copyFileSync(from, join(directory, name));
  }
  return join(directory, 'example_rollouts.jsonl');
}

/** `gymnast aggregate` and `gymnast health` on one file, as the commands read it (with what lies beside it). */
async function bothCommands(file: string): Promise<{ aggregate: AgentAggregate[]; health: HealthSummary }> {
  return { aggregate: await aggregateFiles({ results: [file], ...filesBeside([file]), rolloutInfos: true }), health: await checkRunHealth(file) };
}

/** Each task's rollouts as `task:rollout` ids, task by task. */
const taskGroups = (aggregate: AgentAggregate) => [...aggregate.group_level_metrics].map((group) => group.rollout_infos!.map((info) => info.rollout_id));

/** Both commands refuse the file with the same `AmbiguousTasksError`, at `line`, for `reason`. */
async function assertBothRefuse(file: string, line: number, reason: RegExp): Promise<void> {
  const messages: string[] = [];
  for (const command of [() => aggregateFiles({ results: [file], ...filesBeside([file]) }), () => checkRunHealth(file)]) {
    await assert.rejects(command(), (error: unknown) => {
      assert.ok(error instanceof AmbiguousTasksError, String(error));
      assert.equal(error.kind, 'ambiguous-tasks');
      assert.equal(error.where, `${file}:${line}`);
      assert.match(error.message, reason);
      messages.push(error.message);
      return true;
    });
  }
  assert.equal(messages[0], messages[1]);
}

describe('stored rollout files without _ng_* indices (older NeMo Gym files)', () => {
  it("are one task per prompt, as NeMo Gym's collection numbers identical input rows: five prompts are five tasks, not pass@5 over one", async () => {
    const file = copied('example_single_tool_call');
    assert.ok(lines(file).every((line) => !line.includes('"_ng_')));
    const { aggregate, health } = await bothCommands(file);
    assert.deepEqual(taskGroups(aggregate[0]!), [['0:0'], ['1:0'], ['2:0'], ['3:0'], ['4:0']]);
    assert.ok(!('pass@5/accuracy' in aggregate[0]!.agent_metrics));
    assert.equal(aggregate[0]!.agent_metrics['pass@1/accuracy'], 100);
    assert.deepEqual([health.tasks.total, health.rollouts.total], [5, 5]);
    assert.deepEqual(Object.keys(health.checks), ['no-token-record']);
  });

  it('count the rows of one prompt as rollouts of one task, in file order, for both commands', async () => {
    const file = copied('gymnasium');
    const { aggregate, health } = await bothCommands(file);
    assert.deepEqual(taskGroups(aggregate[0]!), [['0:0', '0:1', '0:2', '0:3', '0:4']]);
    assert.deepEqual([health.tasks.total, health.rollouts.total], [1, 5]);
    assert.ok(!('duplicate-rollout' in health.checks));
  });

  it('are matched to the materialized inputs beside them by prompt, agent and task fields: their task indices and their agent', async () => {
    const file = copied('polymath');
    const { aggregate, health } = await bothCommands(file);
    assert.deepEqual(
      aggregate.map((agent) => agent.agent_ref.name),
      ['polymath_simple_agent'],
    );
    const groups = [...aggregate[0]!.group_level_metrics];
    assert.deepEqual(
      groups.map((group) => [group._ng_task_index, group.num_rollouts, group.expected_num_rollouts]),
      [
        [0, 1, 1],
        [1, 1, 1],
        [2, 1, 1],
        [3, 1, 1],
        [4, 1, 1],
      ],
    );
    // Task 2 is the one the model got wrong (it answered 50 for 55), in the file's third row.
    assert.equal(groups[2]!['mean/reward'], 0);
    assert.deepEqual([health.tasks.total, health.rollouts.total], [5, 5]);
    assert.deepEqual(Object.keys(health.checks), ['no-token-record']);
  });

  it('are refused when a row has no prompt to tell its task by (bbq: responses_create_params is empty)', async () => {
    await assertBothRefuse(
      copied('bbq'),
      1,
      /has no prompt .* and no _ng_task_index: which task it ran cannot be told; give the rows _ng_task_index and _ng_rollout_index, or put the run's materialized inputs beside the file/,
    );
  });

  it('are refused when rows share a prompt but not their task fields (newton_bench: one prompt, three difficulties)', async () => {
    const file = copied('newton_bench');
    await assertBothRefuse(
      file,
      2,
      new RegExp(`has the prompt of ${file}:1 but another difficulty, extracted_law: whether they are repeats of one task or different tasks cannot be told`),
    );
  });

  it('are refused when some rows have indices and others not, naming a row of each', async () => {
    const file = copied('example_single_tool_call', {
      rollouts: (rows) => rows.map((row, i) => (i === 0 ? { ...row, _ng_task_index: 0, _ng_rollout_index: 0 } : row)),
    });
    await assertBothRefuse(file, 2, new RegExp(`has no _ng_task_index and _ng_rollout_index, ${file}:1 has them`));
    const keyed = copied('blackjack');
    const shards = { results: [keyed, copied('gymnasium')] };
    await assert.rejects(aggregateFiles(shards), new RegExp(`${shards.results[1]}:1: has no _ng_task_index and _ng_rollout_index, ${keyed}:1 has them`));
    const half = copied('gymnasium', { rollouts: (rows) => rows.map((row, i) => (i === 2 ? { ...row, _ng_task_index: 0 } : row)) });
    await assertBothRefuse(half, 3, /has _ng_task_index but no _ng_rollout_index: NeMo Gym writes both or neither/);
  });

  it('are refused when two materialized tasks fit a row alike, or a task gets more rows than it plans', async () => {
    const twice = copied('polymath', { materialized: (rows) => [...rows, { ...rows[0]!, _ng_task_index: 5 }] });
    await assertBothRefuse(twice, 1, /matches tasks 0, 5 of .*_materialized_inputs\.jsonl alike \(the same prompt, agent and task fields\)/);
    const extra = copied('polymath', { rollouts: (rows) => [...rows, rows[0]] });
    await assertBothRefuse(extra, 6, /is one row more of task 0 than .*_materialized_inputs\.jsonl plans \(1; the first was .*example_rollouts\.jsonl:1\)/);
    const unplanned = copied('polymath', { materialized: (rows) => rows.slice(1) });
    await assertBothRefuse(unplanned, 1, /matches no row of .*_materialized_inputs\.jsonl: none has its prompt, agent and task fields/);
  });
});

describe('stored rollout files without agent_ref', () => {
  it("take their agent from the materialized inputs beside them: circle_count's metrics are circle_count_simple_agent's, as NeMo Gym wrote them", async () => {
    const file = copied('circle_count');
    assert.ok(lines(file).every((line) => !line.includes('"agent_ref"')));
    const [aggregate] = await aggregateFiles({ results: [file], ...filesBeside([file]) });
    const [expected] = JSON.parse(readFileSync(fixture('circle_count/example_rollouts_aggregate_metrics.json'), 'utf8')) as {
      agent_ref: unknown;
      agent_metrics: Record<string, number>;
      key_metrics: Record<string, number>;
    }[];
    assert.deepEqual(aggregate!.agent_ref, expected!.agent_ref);
    for (const [key, value] of Object.entries(expected!.agent_metrics)) assert.ok(Math.abs((aggregate!.agent_metrics[key] as number) - value) < 1e-9, key);
    for (const key of Object.keys(expected!.key_metrics)) assert.ok(key in aggregate!.key_metrics, key);
  });
});
