// The per-task table and the comparison of two runs, over the viewer's API on loopback, for two
// small crafted runs (test/support/compared-runs.ts) whose numbers are worked out by hand below.

import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findRuns } from '../../src/servers/viewer/run-files.js';
import { ViewerServer } from '../../src/servers/viewer/viewer-server.js';
import type { RunComparison } from '../../src/viewer/run-comparison.js';
import type { TaskPage } from '../../src/viewer/task-page.js';
import { base, baseFailures, next, writeRun } from '../support/compared-runs.js';
import { syntheticRow, toLines } from '../support/synthetic-rows.js';

describe('gymnast view: the per-task table and two runs compared', () => {
  let directory: string;
  let server: ViewerServer;
  const get = async <T>(path: string) => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, body: (await response.json()) as T };
  };

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-view-tasks-'));
    writeRun(join(directory, 'runs'), 'base', base, baseFailures);
    writeRun(join(directory, 'runs'), 'next', next);
    server = await ViewerServer.open({ runs: await findRuns(join(directory, 'runs')) });
    await server.start();
    await server.indexed();
  });
  after(async () => {
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('gives each task its rollouts, pass@n, mean reward, population variance, mean turns and tokens, failures; most variance first', async () => {
    const { status, body } = await get<TaskPage>('/api/runs/base/tasks');
    assert.equal(status, 200);
    assert.equal(body.total, 4);
    assert.equal(body.sort, '-reward_variance');
    // A synthetic message holds 8 tokens: a turn-1 rollout 24 (prompt, answer, observation), a turn-2 one 40.
    assert.deepEqual(body.items, [
      // Variance over n: mean 0.75, (3 × 0.25² + 0.75²) / 4 = 0.1875; pass@4 of 0/1 rewards with a 1 is 1.
      { task: 0, rollouts: 4, scored: 4, failures: 0, pass_at_k: 1, mean_reward: 0.75, reward_variance: 0.1875, mean_turns: 1.5, mean_tokens: 32 },
      // Not 0/1: pass@2 is the best reward, 0.5; variance (2 × 0.125²) / 2.
      { task: 2, rollouts: 2, scored: 2, failures: 0, pass_at_k: 0.5, mean_reward: 0.375, reward_variance: 0.015625, mean_turns: 1, mean_tokens: 24 },
      // The failure counts in rollouts, turns and tokens, not in the reward figures: pass@2 of 0, 0.
      { task: 1, rollouts: 3, scored: 2, failures: 1, pass_at_k: 0, mean_reward: 0, reward_variance: 0, mean_turns: 1, mean_tokens: 24 },
      { task: 3, rollouts: 2, scored: 2, failures: 0, pass_at_k: 1, mean_reward: 1, reward_variance: 0, mean_turns: 1, mean_tokens: 24 },
    ]);
  });

  it('sorts by any column either way (ties in task order) and pages', async () => {
    const order = async (query: string) => (await get<TaskPage>(`/api/runs/base/tasks?${query}`)).body.items.map((item) => item.task);
    assert.deepEqual(await order('sort=mean_reward'), [1, 2, 0, 3]);
    assert.deepEqual(await order('sort=-pass_at_k'), [0, 3, 2, 1]);
    assert.deepEqual(await order('sort=-failures'), [1, 0, 2, 3]);
    assert.deepEqual(await order('sort=-mean_tokens'), [0, 1, 2, 3]);
    assert.deepEqual(await order('sort=-task&offset=1&limit=2'), [2, 1]);
    const bad = await get<{ error: { message: string; parameter: string } }>('/api/runs/base/tasks?sort=reward');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.parameter, 'sort');
  });

  it('matches the tasks of two runs by index, says how many only one has, and gives the deltas (B − A), the largest loss first', async () => {
    const { status, body } = await get<RunComparison>('/api/compare/base/next');
    assert.equal(status, 200);
    const { distribution, items, ...counts } = body;
    assert.deepEqual(counts, {
      a: { id: 'base', tasks: 4 },
      b: { id: 'next', tasks: 4 },
      matched: 3,
      only_in_a: 1,
      only_in_b: 1,
      mean_reward_a: (0.75 + 0 + 0.375) / 3,
      mean_reward_b: (1 + 0.5 + 0.25) / 3,
      mean_delta: (0.25 + 0.5 - 0.125) / 3,
      sort: 'delta',
      offset: 0,
    });
    assert.deepEqual(items, [
      { task: 2, rollouts_a: 2, rollouts_b: 2, mean_reward_a: 0.375, mean_reward_b: 0.25, delta: -0.125 },
      { task: 0, rollouts_a: 4, rollouts_b: 4, mean_reward_a: 0.75, mean_reward_b: 1, delta: 0.25 },
      { task: 1, rollouts_a: 3, rollouts_b: 2, mean_reward_a: 0, mean_reward_b: 0.5, delta: 0.5 },
    ]);
    // Ten bins over 0..1: A's task means 0, 0.375, 0.75; B's 0.25, 0.5, 1 (the last bin holds 1).
    assert.deepEqual(
      distribution.map((bin) => bin.a),
      [1, 0, 0, 1, 0, 0, 0, 1, 0, 0],
    );
    assert.deepEqual(
      distribution.map((bin) => bin.b),
      [0, 0, 1, 0, 0, 1, 0, 0, 0, 1],
    );
    assert.deepEqual([distribution[0]!.lo, distribution.at(-1)!.hi], [0, 1]);
    const reversed = await get<RunComparison>('/api/compare/base/next?sort=-delta&limit=1');
    assert.deepEqual(
      reversed.body.items.map((item) => item.task),
      [1],
    );
  });

  it('answers 404 naming a run it does not serve, and 400 naming a bad sort', async () => {
    const missing = await get<{ error: { message: string } }>('/api/compare/base/nope');
    assert.equal(missing.status, 404);
    assert.match(missing.body.error.message, /no run nope: the runs are base, next/);
    assert.equal((await get('/api/compare/base')).status, 404);
    assert.equal((await get('/api/compare/base/next?sort=variance')).status, 400);
  });

  it('follows a growing run: a new rollout changes its task row and the comparison', async () => {
    appendFileSync(join(directory, 'runs', 'base', 'rollouts.jsonl'), toLines([syntheticRow({ task: 3, rollout: 2, reward: 0 })]));
    const { body } = await get<TaskPage>('/api/runs/base/tasks?sort=task');
    const task3 = body.items.find((item) => item.task === 3)!;
    // Rewards 1, 1, 0: mean 2/3, variance (2 × (1/3)² + (2/3)²) / 3 = 2/9; pass@3 is still 1.
    assert.equal(task3.rollouts, 3);
    assert.ok(Math.abs(task3.mean_reward! - 2 / 3) < 1e-12);
    assert.ok(Math.abs(task3.reward_variance! - 2 / 9) < 1e-12);
    assert.equal(task3.pass_at_k, 1);
    appendFileSync(join(directory, 'runs', 'next', 'rollouts.jsonl'), toLines([syntheticRow({ task: 3, rollout: 0, reward: 0 })]));
    const compared = await get<RunComparison>('/api/compare/base/next?sort=task');
    assert.deepEqual([compared.body.matched, compared.body.only_in_a, compared.body.only_in_b], [4, 0, 1]);
    assert.ok(Math.abs(compared.body.items.at(-1)!.delta! - -2 / 3) < 1e-12);
  });
});
