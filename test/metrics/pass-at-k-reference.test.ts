import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_ANSWER, PassAtKAccumulator, taskPassAtK, unbiasedPassAtK } from '../../src/metrics/pass-at-k.js';

/*
 * PassAtKAccumulator keeps running sums per k; this spec recomputes every metric the slow way, task by
 * task from the definitions NeMo Gym's compute_pass_majority_metrics uses, on tasks of unequal rollout
 * counts, score names given out of order, and answers some rollouts lack. Key order is compared too:
 * NeMo Gym writes k by k, names sorted, then the spreads.
 */

interface Task {
  /** scores[name][i]: rollout i's score. */
  scores: Record<string, number[]>;
  /** NaN: the rollout has no answer. */
  answers: number[];
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function tasks(seed: number, names: readonly string[], count: number): Task[] {
  const random = seeded(seed);
  return Array.from({ length: count }, () => {
    const n = 1 + Math.floor(random() * 6);
    const scores = Object.fromEntries(
      names.map((name) => [name, Array.from({ length: n }, () => (name === 'accuracy' ? (random() < 0.4 ? 1 : 0) : Math.floor(random() * 5) / 4))]),
    );
    const answers = Array.from({ length: n }, () => (random() < 0.25 ? Number.NaN : Math.floor(random() * 3)));
    return { scores, answers };
  });
}

function choose(n: number, k: number): number {
  let value = 1;
  for (let i = 0; i < k; i++) value = (value * (n - i)) / (i + 1);
  return value;
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

function passAtK(values: readonly number[], k: number): number {
  const binary = values.every((value) => value === 0 || value === 1);
  if (!binary) return Math.max(...values.slice(0, k));
  const wrong = values.filter((value) => value === 0).length;
  return 1 - choose(wrong, k) / choose(values.length, k);
}

/** The most common (answer, score) pair among the first k rollouts with an answer, tied pairs' scores averaged; 0 with none. */
function majority(values: readonly number[], answers: readonly number[], k: number): number {
  const counts = new Map<string, { count: number; score: number }>();
  for (let i = 0; i < Math.min(k, values.length); i++) {
    if (Number.isNaN(answers[i]!)) continue;
    const key = `${answers[i]}:${values[i]}`;
    counts.set(key, { count: (counts.get(key)?.count ?? 0) + 1, score: values[i]! });
  }
  if (counts.size === 0) return 0;
  const top = Math.max(...[...counts.values()].map((pair) => pair.count));
  return mean([...counts.values()].filter((pair) => pair.count === top).map((pair) => pair.score));
}

function sampleStd(values: readonly number[]): number {
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, value) => sum + (value - m) ** 2, 0) / (values.length - 1));
}

function reference(all: readonly Task[], names: readonly string[], withAnswers: boolean): Map<string, number> {
  const scored = all.map((task) => ({
    ...task,
    scores: withAnswers ? { ...task.scores, [NO_ANSWER]: task.answers.map((answer) => (Number.isNaN(answer) ? 1 : 0)) } : task.scores,
  }));
  const sorted = [...names, ...(withAnswers ? [NO_ANSWER] : [])].sort();
  const maxN = Math.max(...all.map((task) => task.answers.length));
  const metrics = new Map<string, number>();
  for (let k = 1; k <= maxN; k++) {
    for (const name of sorted) {
      metrics.set(`pass@${k}/${name}`, 100 * mean(scored.filter((task) => task.answers.length >= k).map((task) => passAtK(task.scores[name]!, k))));
      metrics.set(`pass@1[avg-of-${k}]/${name}`, 100 * mean(scored.map((task) => mean(task.scores[name]!.slice(0, k)))));
      if (withAnswers) metrics.set(`majority@${k}/${name}`, 100 * mean(scored.map((task) => majority(task.scores[name]!, task.answers, k))));
    }
  }
  const runMeans = (name: string) =>
    Array.from({ length: maxN }, (_, run) => 100 * mean(scored.filter((task) => task.answers.length > run).map((task) => task.scores[name]![run]!)));
  for (let k = 2; k <= maxN; k++) {
    for (const name of sorted) {
      const spread = sampleStd(runMeans(name).slice(0, k));
      metrics.set(`pass@1[avg-of-${k}]/${name}/std_dev_across_runs`, spread);
      metrics.set(`pass@1[avg-of-${k}]/${name}/std_err_across_runs`, spread / Math.sqrt(k));
    }
  }
  return metrics;
}

function accumulate(all: readonly Task[], names: readonly string[], withAnswers: boolean): PassAtKAccumulator {
  const accumulator = new PassAtKAccumulator(names, { withAnswers });
  for (const task of all)
    accumulator.addTask(
      names.map((name) => task.scores[name]!),
      withAnswers ? task.answers : undefined,
    );
  return accumulator;
}

function assertSameMetrics(actual: Record<string, number>, expected: Map<string, number>): void {
  assert.deepEqual(Object.keys(actual), [...expected.keys()], 'the same keys, in NeMo Gym’s order');
  for (const [key, value] of expected) {
    assert.ok(Math.abs(actual[key]! - value) <= 1e-9 * Math.max(1, Math.abs(value)), `${key}: ${actual[key]} against ${value}`);
  }
}

describe('pass@k, mean@k, majority@k and their spreads, against the definitions task by task', () => {
  // Names out of order, so the keys' order is the accumulator's sorting, not the caller's.
  const names = ['zeta', 'accuracy'];

  for (const seed of [1, 7, 42]) {
    it(`agrees on tasks of 1 to 6 rollouts with answers some lack (seed ${seed})`, () => {
      const all = tasks(seed, names, 14);
      assertSameMetrics(accumulate(all, names, true).metrics(), reference(all, names, true));
    });
  }

  it('agrees without answers: no majority@k and no no_answer score', () => {
    const all = tasks(3, names, 10);
    const metrics = accumulate(all, names, false).metrics();
    assertSameMetrics(metrics, reference(all, names, false));
    assert.ok(!Object.keys(metrics).some((key) => key.startsWith('majority@') || key.includes(NO_ANSWER)));
  });

  it('without options, as without answers (the run overview builds it so)', () => {
    const all = tasks(11, names, 10);
    const accumulator = new PassAtKAccumulator(names);
    for (const task of all) accumulator.addTask(names.map((name) => task.scores[name]!));
    assertSameMetrics(accumulator.metrics(), reference(all, names, false));
  });

  it('counts a task given by its answers alone (no score names) in no_answer', () => {
    const all = tasks(5, [], 6);
    assertSameMetrics(accumulate(all, [], true).metrics(), reference(all, [], true));
  });

  it('names the headline keys at the largest k, family by family for each sorted score', () => {
    const all = tasks(9, names, 8);
    const k = Math.max(...all.map((task) => task.answers.length));
    assert.deepEqual(
      accumulate(all, names, true).headlineKeys(),
      [NO_ANSWER, 'accuracy', 'zeta'].sort().flatMap((name) => [`pass@${k}/${name}`, `pass@1[avg-of-${k}]/${name}`, `majority@${k}/${name}`]),
    );
    assert.deepEqual(
      accumulate(all, names, false).headlineKeys(),
      ['accuracy', 'zeta'].flatMap((name) => [`pass@${k}/${name}`, `pass@1[avg-of-${k}]/${name}`]),
    );
    assert.deepEqual(new PassAtKAccumulator(names).headlineKeys(), [], 'no task, no headline');
  });
});

describe("one task's pass@k (the viewer's task table)", () => {
  it('is the definition for every k up to n, on 0/1 scores and on graded ones', () => {
    for (const task of tasks(13, ['accuracy', 'zeta'], 40)) {
      for (const values of Object.values(task.scores)) {
        for (let k = 1; k <= values.length; k++) {
          const expected = passAtK(values, k);
          assert.ok(Math.abs(taskPassAtK(values, k) - expected) <= 1e-12, `pass@${k} of ${values}: ${taskPassAtK(values, k)} against ${expected}`);
        }
      }
    }
  });
});

describe('unbiased pass@k (Chen et al.)', () => {
  it('is 1 − C(n − c, k) / C(n, k) for every n up to 8, every c and every k up to n', () => {
    for (let n = 1; n <= 8; n++) {
      for (let correct = 0; correct <= n; correct++) {
        for (let k = 1; k <= n; k++) {
          const expected = 1 - choose(n - correct, k) / choose(n, k);
          assert.ok(
            Math.abs(unbiasedPassAtK(n, correct, k) - expected) < 1e-12,
            `n=${n} c=${correct} k=${k}: ${unbiasedPassAtK(n, correct, k)} vs ${expected}`,
          );
        }
      }
    }
  });

  it('is 1 for every k beyond n once a sample is correct (fewer than k wrong, as HumanEval’s estimator)', () => {
    for (let n = 1; n <= 5; n++) {
      for (let correct = 1; correct <= n; correct++) {
        for (let k = n + 1; k <= n + 3; k++) assert.equal(unbiasedPassAtK(n, correct, k), 1, `n=${n} c=${correct} k=${k}`);
      }
    }
  });
});
