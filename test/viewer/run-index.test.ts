import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ResultRowHead } from '../../src/core/row-reader.js';
import { rolloutFactsFromRow } from '../../src/metrics/rollout-metrics.js';
import { parseRolloutQuery } from '../../src/viewer/rollout-query.js';
import { RolloutLister, rolloutDetail, taskGroup } from '../../src/viewer/rollout-views.js';
import { RunIndex, type RunFiles } from '../../src/viewer/run-index.js';
import { runOverview, runSummary } from '../../src/viewer/run-overview.js';
import { syntheticRow, toLines, type SyntheticRollout } from '../support/synthetic-rows.js';

const query = (search: string) => parseRolloutQuery(new URLSearchParams(search));

/** 3 tasks × 2 repeats: task 0 solved twice, task 1 once, task 2 never; one failure (task 2, rollout 1). */
const successes: SyntheticRollout[] = [
  { task: 0, rollout: 0, reward: 1, turns: 1 },
  { task: 0, rollout: 1, reward: 1, turns: 2, drift: [1] },
  { task: 1, rollout: 0, reward: 0, turns: 3, answer: 'I think it is "seventeen"' },
  { task: 1, rollout: 1, reward: 1, turns: 1, agent: 'other' },
  { task: 2, rollout: 0, reward: 0, turns: 2, durationMs: 500 },
];
const failures: SyntheticRollout[] = [{ task: 2, rollout: 1, failure: 'transport' }];

describe('RunIndex: a run indexed once by streaming, then followed', () => {
  let directory: string;
  let files: RunFiles;
  let index: RunIndex;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-run-index-'));
    files = { id: 'out', output: join(directory, 'out.jsonl'), failures: join(directory, 'out_failures.jsonl') };
    writeFileSync(files.output, toLines(successes.map(syntheticRow)));
    writeFileSync(files.failures, toLines(failures.map(syntheticRow)));
    index = await RunIndex.build(files);
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('counts successes, failures, tasks and agents, and the mean reward of successes only', () => {
    const bytes = statSync(files.output).size + statSync(files.failures).size;
    const { version, ...summary } = runSummary(index);
    assert.deepEqual(summary, {
      id: 'out',
      file: files.output,
      agents: ['arithmetic', 'other'],
      rollouts: 5,
      failures: 1,
      mean_reward: 3 / 5,
      indexing: { done: true, bytes_read: bytes, bytes_total: bytes },
    });
    assert.ok(version >= 1, 'the version goes up as chunks are indexed');
    const overview = runOverview(index);
    assert.deepEqual(overview.counts, { rollouts: 5, failures: 1, tasks: 3, prompt_too_long: 0 });
    assert.deepEqual(overview.terminations, { 'env-done': 5, 'policy-error': 1 });
    assert.deepEqual(overview.failure_classes, { transport: 1 });
    assert.deepEqual(overview.drift, { rollouts: 1, total: 1 });
    assert.equal(
      overview.reward_histogram.reduce((sum, bin) => sum + bin.count, 0),
      5,
    );
    assert.deepEqual(
      overview.turns_histogram.map((bin) => [bin.lo, bin.count]),
      [
        [1, 3],
        [2, 2],
        [3, 1],
      ],
    );
  });

  it('has no health while gymnast health has not checked the run', async () => {
    assert.equal(index.health, null);
    assert.equal(runOverview(index).health, null);
    assert.equal((await rolloutDetail(index, 0)).health, null);
    assert.equal((await new RolloutLister(index).page(query('health=healthy'))).total, 0, 'nothing is known healthy');
  });

  it('gives pass@k by the metrics rule over successes: the unbiased estimator on 0/1 rewards', () => {
    // pass@1: task 0 → 1, task 1 → 1/2, task 2 (one success, reward 0) → 0; pass@2 only over tasks with 2: (1 + 1) / 2.
    assert.deepEqual(runOverview(index).pass_at_k, [
      { k: 1, value: 0.5 },
      { k: 2, value: 1 },
    ]);
  });

  it('filters by termination, agent, task, failure, drift and reward', async () => {
    const lister = new RolloutLister(index);
    const ids = async (search: string) => (await lister.page(query(search))).items.map((item) => item.id);
    assert.deepEqual(await ids('termination=policy-error'), ['f0']);
    assert.deepEqual(await ids('agent=other'), ['o3']);
    assert.deepEqual(await ids('task=1'), ['o2', 'o3']);
    assert.deepEqual(await ids('failure=any'), ['f0']);
    assert.deepEqual(await ids('failure=transport'), ['f0']);
    assert.deepEqual(await ids('failure=none&min_reward=1'), ['o0', 'o1', 'o3']);
    assert.deepEqual(await ids('drift=1'), ['o1']);
    assert.deepEqual(await ids('max_reward=0'), ['o2', 'o4']);
    assert.deepEqual(await ids('agent=nobody'), []);
  });

  it('sorts by a key either way (failures last), ties in task and rollout order, and pages', async () => {
    const lister = new RolloutLister(index);
    const page = await lister.page(query('sort=-reward&limit=2&offset=1'));
    assert.equal(page.total, 6);
    assert.deepEqual(
      page.items.map((item) => item.id),
      ['o1', 'o3'],
    );
    assert.deepEqual(
      (await lister.page(query('sort=reward'))).items.map((item) => item.id),
      ['o2', 'o4', 'o0', 'o1', 'o3', 'f0'],
    );
    assert.deepEqual(
      (await lister.page(query('sort=-turns&limit=1'))).items.map((item) => item.id),
      ['o2'],
    );
    assert.deepEqual(
      (await lister.page(query('sort=-duration&limit=1'))).items.map((item) => item.id),
      ['o4'],
    );
    assert.deepEqual(
      (await lister.page(query('sort=-task&limit=2'))).items.map((item) => item.id),
      ['o4', 'f0'],
    );
  });

  it('lists a rollout with its facts, a failure with a null reward', async () => {
    const page = await new RolloutLister(index).page(query('task=2'));
    assert.deepEqual(page.items[1], {
      id: 'f0',
      task: 2,
      rollout: 1,
      agent: 'arithmetic',
      reward: null,
      termination: 'policy-error',
      failure_class: 'transport',
      turns: 1,
      tokens: 24,
      drift: 0,
      drift_unchecked: 0,
      duration_ms: 11,
      health: null,
    });
  });

  it('finds text in messages, case-insensitive, quotes as written', async () => {
    const lister = new RolloutLister(index);
    const found = await lister.page(query('q=SEVENTEEN'));
    assert.deepEqual([found.total, found.partial, found.items.map((item) => item.id)], [1, false, ['o2']]);
    assert.deepEqual(
      (await lister.page(query('q=is "seventeen"'))).items.map((item) => item.id),
      ['o2'],
    );
    assert.equal((await lister.page(query('q=nowhere to be found'))).total, 0);
  });

  it('names a bad query parameter', () => {
    assert.throws(() => query('limit=0'), /bad query parameter limit/);
    assert.throws(() => query('sort=colour'), /bad query parameter sort/);
    assert.throws(() => query('min_reward=abc'), /bad query parameter min_reward/);
  });

  it('reads a whole rollout back by its offset: tokens in message order, the loss mask, drift points', async () => {
    const at = index.columns.find('o1')!;
    const detail = await rolloutDetail(index, at, { decode: (ids) => `<${ids.join(',')}>` });
    assert.equal(detail.summary.id, 'o1');
    assert.equal(detail.row._ng_rollout_index, 1);
    assert.equal(detail.tokens.length, 5 * 8);
    assert.deepEqual(detail.tokens[8], { id: 31, text: '<31>', logprob: -0.031, trained: true, message: 1, role: 'assistant' });
    assert.equal(detail.tokens[0]!.trained, false);
    assert.deepEqual(detail.drift_points, [1]);
  });

  it('groups a task: its rollouts in order, messages without token fields', async () => {
    const { items: group } = await taskGroup(index, 2);
    assert.deepEqual(
      group.map((item) => item.id),
      ['o4', 'f0'],
    );
    assert.deepEqual(Object.keys(group[0]!.messages[1]!).sort(), ['content', 'role']);
  });

  it('follows the files: complete new lines are indexed and bump the version; a cut last line waits', async () => {
    const follower = await RunIndex.build(files);
    const version = follower.version;
    const line = JSON.stringify(syntheticRow({ task: 3, rollout: 0, reward: 1 }));
    appendFileSync(files.output, line.slice(0, 40));
    await follower.refresh();
    assert.equal(follower.version, version);
    assert.equal(runSummary(follower).rollouts, 5);
    appendFileSync(files.output, `${line.slice(40)}\n`);
    appendFileSync(files.failures, toLines([syntheticRow({ task: 3, rollout: 1, failure: 'timeout' })]));
    await follower.refresh();
    assert.equal(follower.version, version + 1);
    assert.deepEqual([runSummary(follower).rollouts, runSummary(follower).failures], [6, 2]);
    assert.equal((await new RolloutLister(follower).page(query('task=3'))).total, 2);
  });

  it('starts over when a file is rewritten shorter (a fresh collect into the same output)', async () => {
    const follower = await RunIndex.build(files);
    writeFileSync(files.output, toLines([syntheticRow({ task: 0, rollout: 0, reward: 1 })]));
    await follower.refresh();
    assert.equal(runSummary(follower).rollouts, 1);
  });

  it('skips and counts lines that are not rows, naming the first', async () => {
    const other = join(directory, 'bad.jsonl');
    writeFileSync(other, `${JSON.stringify(syntheticRow({ task: 0, rollout: 0 }))}\n{"not": "a row"}\nnot json\n`);
    const bad = await RunIndex.build({ id: 'bad', output: other, failures: join(directory, 'bad_failures.jsonl') });
    assert.equal(runSummary(bad).rollouts, 1);
    assert.equal(bad.skipped.count, 2);
    assert.match(bad.skipped.first!, /bad\.jsonl:2/);
  });
});

const gymnast = new URL('../../bin/gymnast.js', import.meta.url).pathname;

describe('RunIndex: the verdicts of gymnast health joined to the rollouts', () => {
  let directory: string;
  let files: RunFiles;
  let index: RunIndex;
  const health = (...args: string[]) => promisify(execFile)(process.execPath, [gymnast, 'health', files.output, '--max-unhealthy', '1', ...args]);
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-run-health-'));
    files = { id: 'out', output: join(directory, 'out.jsonl'), failures: join(directory, 'out_failures.jsonl') };
    // Tasks 0 and 1 solved twice, task 2 never (a task-level warning); o1 corrupted by hand: a logprob above 0.
    const rows = [0, 1, 2].flatMap((task) => [0, 1].map((rollout) => syntheticRow({ task, rollout, reward: task === 2 ? 0 : 1 })));
    (rows[1]!.messages as { generation_logprobs: number[] }[])[1]!.generation_logprobs[0] = 0.5;
    writeFileSync(files.output, toLines(rows));
    await health();
    index = await RunIndex.build(files);
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it("lists each rollout with its verdict: the corrupted one unhealthy, the all-zero task's warnings, the unlisted ones healthy", async () => {
    const items = (await new RolloutLister(index).page(query(''))).items;
    assert.deepEqual(
      items.map((item) => [item.id, item.health]),
      [
        ['o0', 'healthy'],
        ['o1', 'unhealthy'],
        ['o2', 'healthy'],
        ['o3', 'healthy'],
        ['o4', 'warning'],
        ['o5', 'warning'],
      ],
    );
  });

  it('filters by verdict', async () => {
    const lister = new RolloutLister(index);
    assert.deepEqual(
      (await lister.page(query('health=unhealthy'))).items.map((item) => item.id),
      ['o1'],
    );
    assert.equal((await lister.page(query('health=healthy'))).total, 3);
    assert.deepEqual(
      (await lister.page(query('health=warning'))).items.map((item) => item.id),
      ['o4', 'o5'],
      'a task whose repeats all scored 0 flags each of them, as gymnast health counts them',
    );
    assert.throws(() => query('health=sick'), /bad query parameter health/);
  });

  it("counts in the table's health filter what the overview's health tile counts, verdict by verdict", async () => {
    const lister = new RolloutLister(index);
    const tile = runOverview(index).health!;
    for (const verdict of ['healthy', 'warning', 'unhealthy', 'evaluation-only', 'failed'] as const) {
      const filtered = (await lister.page(query(`health=${verdict}`))).total;
      assert.equal(filtered, tile[verdict === 'evaluation-only' ? 'evaluation_only' : verdict], `${verdict}: the filter and the tile agree`);
    }
  });

  it("gives a rollout of an all-zero task the task's finding with its verdict", async () => {
    const detail = await rolloutDetail(index, index.columns.find('o4')!);
    assert.deepEqual([detail.health?.verdict, detail.health?.findings.map((finding) => finding.check)], ['warning', ['task-all-zero-reward']]);
  });

  it("gives a rollout's findings with its detail", async () => {
    const detail = await rolloutDetail(index, index.columns.find('o1')!);
    assert.equal(detail.health?.verdict, 'unhealthy');
    assert.deepEqual(
      detail.health?.findings.map((finding) => [finding.check, finding.severity]),
      [['logprobs-positive', 'error']],
    );
    assert.match(detail.health!.findings[0]!.message, /0\.5, above 0/);
    assert.deepEqual((await rolloutDetail(index, 0)).health, { verdict: 'healthy', findings: [] });
  });

  it('keeps task-level findings for the task, and the summary for the overview', () => {
    assert.deepEqual(
      index.health?.taskFindings(2).map((finding) => finding.check),
      ['task-all-zero-reward'],
    );
    assert.deepEqual(index.health?.taskFindings(0), []);
    const summary = JSON.parse(readFileSync(join(directory, 'out_health.json'), 'utf8'));
    assert.deepEqual(runOverview(index).health, {
      ...pick(summary.rollouts, 'healthy', 'warning', 'unhealthy', 'evaluation_only', 'failed'),
      checks: { 'logprobs-positive': 1, 'task-all-zero-reward': 1 },
    });
  });

  it('reads the report again when gymnast health writes it again, with a new version', async () => {
    const version = index.version;
    await index.refresh();
    assert.equal(index.version, version, 'unchanged files: same version');
    const rows = readFileSync(files.output, 'utf8').split('\n');
    rows[1] = JSON.stringify(syntheticRow({ task: 0, rollout: 1, reward: 1 }));
    writeFileSync(files.output, rows.join('\n'));
    await health();
    await index.refresh();
    assert.ok(index.version > version);
    assert.equal((await new RolloutLister(index).page(query('health=unhealthy'))).total, 0);
  });
});

describe('RunIndex: health verdicts of a run with failures, counted as the overview counts them', () => {
  let directory: string;
  let index: RunIndex;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-run-health-failed-'));
    const files = { id: 'out', output: join(directory, 'out.jsonl'), failures: join(directory, 'out_failures.jsonl') };
    // Task 0: one success, one failure; task 1: both failed (a task-level error); task 2: both scored 0 (a task-level warning).
    const successes = [syntheticRow({ task: 0, rollout: 0, reward: 1 }), ...[0, 1].map((rollout) => syntheticRow({ task: 2, rollout, reward: 0 }))];
    const failed = [
      syntheticRow({ task: 0, rollout: 1, failure: 'transport' }),
      ...[0, 1].map((rollout) => syntheticRow({ task: 1, rollout, failure: 'transport' })),
    ];
    writeFileSync(files.output, toLines(successes));
    writeFileSync(files.failures, toLines(failed));
    await promisify(execFile)(process.execPath, [gymnast, 'health', files.output, '--max-unhealthy', '10']);
    index = await RunIndex.build(files);
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('gives each verdict of the table the count of the tile', async () => {
    const lister = new RolloutLister(index);
    const tile = runOverview(index).health!;
    const counts = Object.fromEntries(
      await Promise.all(
        (['healthy', 'warning', 'unhealthy', 'evaluation-only', 'failed'] as const).map(async (verdict) => [
          verdict,
          (await lister.page(query(`health=${verdict}`))).total,
        ]),
      ),
    );
    assert.deepEqual(counts, { healthy: 1, warning: 2, unhealthy: 2, 'evaluation-only': 0, failed: 1 });
    assert.deepEqual(counts, {
      healthy: tile.healthy,
      warning: tile.warning,
      unhealthy: tile.unhealthy,
      'evaluation-only': tile.evaluation_only,
      failed: tile.failed,
    });
  });
});

describe('RunIndex: evaluation-only rollouts and turns not checked for drift, as gymnast health judged them', () => {
  let directory: string;
  let index: RunIndex;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-run-eval-'));
    const files = { id: 'out', output: join(directory, 'out.jsonl'), failures: join(directory, 'out_failures.jsonl') };
    // Task 0: a text-only policy's rollouts (every turn unchecked, as its server never returns the prompt);
    // task 1: a server-rendered rollout whose second turn came back without prompt ids, and a checked one.
    const rows = [
      syntheticRow({ task: 0, rollout: 0, reward: 1, turns: 2, evaluationOnly: true, unchecked: [0, 1] }),
      syntheticRow({ task: 0, rollout: 1, reward: 0, evaluationOnly: true, unchecked: [0] }),
      syntheticRow({ task: 1, rollout: 0, reward: 1, turns: 2, unchecked: [1] }),
      syntheticRow({ task: 1, rollout: 1, reward: 1 }),
    ];
    writeFileSync(files.output, toLines(rows));
    await promisify(execFile)(process.execPath, [gymnast, 'health', files.output]);
    index = await RunIndex.build(files);
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('gives each rollout the verdict health counted, evaluation-only included, and its unchecked turns', async () => {
    const items = (await new RolloutLister(index).page(query(''))).items;
    assert.deepEqual(
      items.map((item) => [item.id, item.health, item.drift_unchecked]),
      [
        ['o0', 'evaluation-only', 2],
        ['o1', 'evaluation-only', 1],
        ['o2', 'warning', 1],
        ['o3', 'healthy', 0],
      ],
    );
    assert.deepEqual(
      (await new RolloutLister(index).page(query('health=evaluation-only'))).items.map((item) => item.id),
      ['o0', 'o1'],
    );
    const detail = await rolloutDetail(index, index.columns.find('o2')!);
    assert.deepEqual(
      detail.health?.findings.map((finding) => finding.check),
      ['drift-unchecked'],
    );
    assert.deepEqual(
      detail.row.turns?.map((turn) => turn.drift_unchecked),
      [undefined, true],
    );
  });

  it('counts them in the overview as the report does', () => {
    const overview = runOverview(index);
    assert.deepEqual(pick(overview.health as unknown as Record<string, number>, 'healthy', 'warning', 'unhealthy', 'evaluation_only'), {
      healthy: 1,
      warning: 1,
      unhealthy: 0,
      evaluation_only: 2,
    });
    assert.deepEqual(overview.drift_unchecked, { rollouts: 3, total: 4 });
    assert.deepEqual(overview.drift, { rollouts: 0, total: 0 });
  });
});

describe("RunIndex: a rollout's tokens", () => {
  it('are its sequence as the rollout metrics count it: a prompt that never reached the model included, usage for rows with no record', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'gymnast-run-tokens-'));
    try {
      const twoTurns = syntheticRow({ task: 0, rollout: 0, turns: 2 });
      // The prompt alone filled max_seq_len: no turn, the prompt's 8 tokens on the sequence.
      const tooLong = { ...syntheticRow({ task: 1, rollout: 0, turns: 0 }), termination: { kind: 'prompt-too-long' } };
      // An agent server's row: no turns, no messages, only the usage it reported.
      const { turns: _turns, messages: _messages, num_turns: _count, ...served } = syntheticRow({ task: 2, rollout: 0 });
      const agentServer = { ...served, response: { output: [], usage: { input_tokens: 30, output_tokens: 12, total_tokens: 42 } } };
      const files = { id: 'out', output: join(directory, 'out.jsonl'), failures: join(directory, 'out_failures.jsonl') };
      writeFileSync(files.output, toLines([twoTurns, tooLong, agentServer]));
      writeFileSync(files.failures, '');
      const index = await RunIndex.build(files);
      const tokens = (await new RolloutLister(index).page(query(''))).items.map((item) => item.tokens);
      // What the aggregate's rollout metrics (`mean_sequence_tokens_per_sample`) count of the same row.
      const measured = rolloutFactsFromRow(ResultRowHead.parse(twoTurns))!.total_tokens;
      assert.deepEqual(tokens, [measured, 8, 42]);
      assert.equal(tokens[0], 5 * 8);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

function pick(record: Record<string, number>, ...names: string[]): Record<string, number> {
  return Object.fromEntries(names.map((name) => [name, record[name]!]));
}
