import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { aggregateFiles } from '../../src/collect/aggregate-files.js';
import { writeAggregate } from '../../src/collect/write-aggregate-file.js';
import { mathEnvironment } from '../../src/environments/math.js';
import { passMajorityMetrics, unbiasedPassAtK } from '../../src/metrics/index.js';
import { environmentResourcesServer } from '../../src/servers/resources/environment-resources-server.js';

const fixture = (path: string) => new URL(`../fixtures/nemo-gym/${path}`, import.meta.url);
const readJson = <T>(path: string) => JSON.parse(readFileSync(fixture(path), 'utf8')) as T;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface AgentEntry {
  agent_ref: { name: string };
  agent_metrics: { [key: string]: Json };
  key_metrics: { [key: string]: Json };
  group_level_metrics: { [key: string]: Json }[];
}

/**
 * The same JSON as NeMo Gym's, recursively: every key it has and no other, in its order; numbers
 * equal to 1e-9 (Python writes 1.0 where JavaScript writes 1, and sums in another order).
 */
function assertSameJson(actual: Json | undefined, expected: Json, path: string): void {
  if (typeof expected === 'number') {
    assert.equal(typeof actual, 'number', `${path}: expected the number ${expected}, got ${JSON.stringify(actual)}`);
    assert.ok(Math.abs((actual as number) - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${path}: ${actual} vs NeMo Gym's ${expected}`);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected a list`);
    assert.equal(actual.length, expected.length, `${path}: length`);
    expected.forEach((item, i) => assertSameJson(actual[i], item, `${path}[${i}]`));
  } else if (typeof expected === 'object' && expected !== null) {
    assert.ok(typeof actual === 'object' && actual !== null && !Array.isArray(actual), `${path}: expected an object`);
    const missing = Object.keys(expected).filter((key) => !(key in actual));
    const extra = Object.keys(actual).filter((key) => !(key in expected));
    assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, `${path}: keys NeMo Gym gave that gymnast lacks, and keys it did not give`);
    assert.deepEqual(Object.keys(actual), Object.keys(expected), `${path}: NeMo Gym's key order`);
    for (const [key, value] of Object.entries(expected)) assertSameJson(actual[key], value, `${path}.${key}`);
  } else {
    assert.deepEqual(actual, expected, path);
  }
}

/** Key metrics are a server's choice of headline entries, in an order of its own: compared as a set. */
const sortedKeys = (object: { [key: string]: Json }) => Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

function assertSameAggregate(actual: AgentEntry, expected: AgentEntry): void {
  assert.deepEqual(actual.agent_ref, expected.agent_ref);
  assertSameJson(actual.agent_metrics, expected.agent_metrics, 'agent_metrics');
  assertSameJson(sortedKeys(actual.key_metrics), sortedKeys(expected.key_metrics), 'key_metrics');
  assertSameJson(actual.group_level_metrics, expected.group_level_metrics, 'group_level_metrics');
}

/** What `gymnast aggregate --rollout-infos` writes for a stored NeMo Gym run (its materialized inputs beside it), read back. */
async function gymnastAggregate(example: string): Promise<AgentEntry[]> {
  const rollouts = fileURLToPath(fixture(`${example}/example_rollouts.jsonl`));
  const aggregates = await aggregateFiles({
    results: [rollouts],
    materialized: [rollouts.replace(/\.jsonl$/, '_materialized_inputs.jsonl')],
    rolloutInfos: true,
  });
  const out = new PassThrough();
  const text = textOf(out);
  await writeAggregate(out, aggregates);
  out.end();
  return JSON.parse(await text) as AgentEntry[];
}

async function textOf(stream: PassThrough): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

/**
 * NeMo Gym's `compute_aggregate_metrics` builds each group's sample from a placeholder row, so every
 * sample names the agent `agent`; gymnast's file names the agent the group belongs to.
 */
function withNeMoGymSamples(entry: AgentEntry): AgentEntry {
  for (const group of entry.group_level_metrics) assert.deepEqual(group.sample, { agent_ref: { name: entry.agent_ref.name } });
  return { ...entry, group_level_metrics: entry.group_level_metrics.map((group) => ({ ...group, sample: { agent_ref: { name: 'agent' } } })) };
}

/** The keys gymnast adds for 0/1 rewards (pass@k and friends, as NeMo Gym's math and mcqa servers compute them), for a server that computes none. */
function withoutPassAtK(entry: AgentEntry): AgentEntry {
  const isPassAtK = (key: string) => /^(pass|majority)@/.test(key) || key === 'per_sample_aggregate';
  const keep = (metrics: { [key: string]: Json }) => Object.fromEntries(Object.entries(metrics).filter(([key]) => !isPassAtK(key)));
  assert.ok(Object.keys(entry.agent_metrics).some(isPassAtK), 'gymnast computes pass@k for 0/1 rewards');
  return { ...entry, agent_metrics: keep(entry.agent_metrics), key_metrics: keep(entry.key_metrics) };
}

describe("NeMo Gym's aggregate metrics, recomputed key for key", () => {
  it('physics_with_judge (5 tasks × 5 rollouts, rewards mixed within tasks, answers differing): every key NeMo Gym computed, pass@k, mean@k, majority@k, their spreads and per_sample_aggregate included, and no other', async () => {
    const [actual] = await gymnastAggregate('physics_with_judge');
    const [expected] = readJson<AgentEntry[]>('physics_with_judge/example_rollouts_aggregate_metrics.json');
    assert.ok(Object.keys(expected!.agent_metrics).includes('pass@5/accuracy'));
    assertSameAggregate(withNeMoGymSamples(actual!), expected!);
  });

  it("physics_with_judge: the agent statistics NeMo Gym's reward profile stored beside the rollouts (its commit 5ad3495f1)", async () => {
    const [actual] = await gymnastAggregate('physics_with_judge');
    const [stored] = readJson<{ [key: string]: Json }[]>('physics_with_judge/example_rollouts_agent_metrics.json');
    const { agent_ref: agentRef, ...statistics } = stored!;
    assert.deepEqual(actual!.agent_ref, agentRef);
    const described = Object.fromEntries(Object.entries(actual!.agent_metrics).filter(([key]) => /^(mean|max|min|median|std)\//.test(key)));
    assertSameJson(described, statistics, 'agent_metrics');
  });

  it("a resources server's /aggregate_metrics, given the verify responses NeMo Gym's collector sends after a run whose failures left tasks with 1, 3 and 5 rollouts, answers what NeMo Gym's does", async () => {
    const server = environmentResourcesServer(mathEnvironment());
    const url = await server.start();
    try {
      const request = readJson<{ verify_responses: unknown[] }>('physics_with_judge/partial_aggregate_metrics_request.json');
      const response = await fetch(`${url}/aggregate_metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      assert.equal(response.status, 200);
      const actual = (await response.json()) as Omit<AgentEntry, 'agent_ref'>;
      const expected = readJson<Omit<AgentEntry, 'agent_ref'>>('physics_with_judge/partial_aggregate_metrics.json');
      assert.deepEqual(
        expected.group_level_metrics.map((group) => group.num_rollouts),
        [3, 5, 1, 5, 3],
      );
      assertSameAggregate({ agent_ref: { name: 'agent' }, ...actual }, { agent_ref: { name: 'agent' }, ...expected });
    } finally {
      await server.close();
    }
  });

  it('blackjack (5 rollouts of one task, rewards -1 and 1): every key NeMo Gym computed and no other; no pass@k for rewards that are not 0 or 1', async () => {
    const [actual] = await gymnastAggregate('blackjack');
    const [expected] = readJson<AgentEntry[]>('blackjack/example_rollouts_aggregate_metrics.json');
    assertSameAggregate(withNeMoGymSamples(actual!), expected!);
  });

  it('example_multi_turn_gymnasium (5 tasks, one rollout each, every reward 1): every key NeMo Gym computed; besides, only the pass@k its server does not compute', async () => {
    const [actual] = await gymnastAggregate('example_multi_turn_gymnasium');
    const [expected] = readJson<AgentEntry[]>('example_multi_turn_gymnasium/example_rollouts_aggregate_metrics.json');
    assertSameAggregate(withoutPassAtK(withNeMoGymSamples(actual!)), expected!);
  });
});

describe('pass@k and friends', () => {
  it('uses the unbiased estimator for binary rewards, without overflowing on large groups', () => {
    assert.equal(unbiasedPassAtK(5, 0, 1), 0);
    assert.equal(unbiasedPassAtK(5, 2, 1), 0.4);
    assert.ok(Math.abs(unbiasedPassAtK(5, 2, 2) - (1 - 3 / 10)) < 1e-12);
    assert.equal(unbiasedPassAtK(5, 4, 2), 1);
    assert.ok(Math.abs(unbiasedPassAtK(20_000, 1, 10_000) - 0.5) < 1e-12);
  });

  it('reports percentages: pass@k, mean@k with its spread across runs, and max-of-k for continuous rewards', () => {
    const binary = passMajorityMetrics([
      [{ scores: { accuracy: 1 } }, { scores: { accuracy: 0 } }],
      [{ scores: { accuracy: 0 } }, { scores: { accuracy: 0 } }],
    ]);
    assert.equal(binary['pass@1/accuracy'], 25);
    assert.equal(binary['pass@2/accuracy'], 50);
    assert.equal(binary['pass@1[avg-of-2]/accuracy'], 25);
    assert.ok(Math.abs(binary['pass@1[avg-of-2]/accuracy/std_dev_across_runs']! - Math.SQRT2 * 25) < 1e-9);
    assert.ok(Math.abs(binary['pass@1[avg-of-2]/accuracy/std_err_across_runs']! - 25) < 1e-9);
    const continuous = passMajorityMetrics([[{ scores: { accuracy: 0.2 } }, { scores: { accuracy: 0.7 } }]]);
    assert.ok(Math.abs(continuous['pass@1/accuracy']! - 20) < 1e-9);
    assert.ok(Math.abs(continuous['pass@2/accuracy']! - 70) < 1e-9);
  });

  it('decides binary or continuous per task, as NeMo Gym does', () => {
    const metrics = passMajorityMetrics([
      [{ scores: { accuracy: 1 } }, { scores: { accuracy: 0 } }],
      [{ scores: { accuracy: 0.5 } }, { scores: { accuracy: 0.25 } }],
    ]);
    assert.ok(Math.abs(metrics['pass@1/accuracy']! - (100 * (0.5 + 0.5)) / 2) < 1e-9);
    assert.ok(Math.abs(metrics['pass@2/accuracy']! - (100 * (1 + 0.5)) / 2) < 1e-9);
  });

  it('skips tasks with fewer than k rollouts for pass@k only: mean@k and the per-run means take every task', () => {
    const metrics = passMajorityMetrics([
      [{ scores: { accuracy: 1 } }, { scores: { accuracy: 1 } }, { scores: { accuracy: 0 } }],
      [{ scores: { accuracy: 0 } }],
    ]);
    assert.equal(metrics['pass@3/accuracy'], 100);
    assert.equal(metrics['pass@1[avg-of-3]/accuracy'], (100 * (2 / 3 + 0)) / 2);
    // Runs: [1, 0] → 50, [1] → 100, [0] → 0; std of the first three per-run means.
    assert.ok(Math.abs(metrics['pass@1[avg-of-3]/accuracy/std_dev_across_runs']! - 50) < 1e-9);
    assert.deepEqual(Object.keys(metrics).slice(0, 2), ['pass@1/accuracy', 'pass@1[avg-of-1]/accuracy']);
  });

  it('counts a task without rollouts, or rollouts without scores, for nothing', () => {
    const answered = [{ scores: { accuracy: 1 } }, { scores: { accuracy: 0 } }];
    assert.deepEqual(passMajorityMetrics([answered, []]), passMajorityMetrics([answered]));
    assert.deepEqual(passMajorityMetrics([[{ scores: {} }, { scores: {} }]]), {});
    assert.deepEqual(passMajorityMetrics([[]]), {});
  });

  it('with answers, computes no_answer from them: a no_answer score the rollouts carry is not taken', () => {
    const task = (noAnswer: number) => [
      { scores: { accuracy: 1, no_answer: noAnswer }, answer: '4' },
      { scores: { accuracy: 0, no_answer: noAnswer }, answer: null },
    ];
    const metrics = passMajorityMetrics([task(1), task(0)], { withAnswers: true });
    assert.deepEqual(
      metrics,
      passMajorityMetrics(
        [task(1), task(0)].map((rollouts) => rollouts.map(({ scores: { accuracy }, answer }) => ({ scores: { accuracy }, answer }))),
        { withAnswers: true },
      ),
    );
    assert.equal(metrics['pass@1/no_answer'], 50);
    assert.equal(metrics['pass@1[avg-of-2]/no_answer'], 50);
  });

  it('takes a rollout without an answer as one whose answer is null: no answer, not an answer of its own', () => {
    const metrics = passMajorityMetrics([[{ scores: { accuracy: 0 } }, { scores: { accuracy: 0 } }, { scores: { accuracy: 1 }, answer: '4' }]], {
      withAnswers: true,
    });
    assert.equal(metrics['majority@3/accuracy'], 100);
    assert.ok(Math.abs(metrics['pass@1[avg-of-3]/no_answer']! - 200 / 3) < 1e-9);
  });

  it('takes the most common (answer, score) for majority@k, averaging ties, and scores missing answers as no_answer', () => {
    const metrics = passMajorityMetrics(
      [
        [
          { scores: { accuracy: 1 }, answer: '4' },
          { scores: { accuracy: 0 }, answer: '5' },
          { scores: { accuracy: 1 }, answer: '4' },
        ],
        [
          { scores: { accuracy: 0 }, answer: null },
          { scores: { accuracy: 0 }, answer: '7' },
          { scores: { accuracy: 1 }, answer: '8' },
        ],
      ],
      { withAnswers: true },
    );
    assert.equal(metrics['majority@1/accuracy'], 50);
    assert.equal(metrics['majority@2/accuracy'], 25);
    assert.equal(metrics['majority@3/accuracy'], 75);
    assert.equal(metrics['majority@3/no_answer'], 0);
    assert.ok(Math.abs(metrics['pass@1[avg-of-3]/no_answer']! - 100 / 6) < 1e-9);
    assert.ok(Math.abs(metrics['pass@1/no_answer']! - 100 / 6) < 1e-9);
  });
});
