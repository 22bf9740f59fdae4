// The per-task table and the comparison of two runs in a real headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core), served by the real ViewerServer over crafted runs
// laid out as `runs/NAME/rollouts.jsonl`: sorting by a header reorders the rows (aria-sort follows,
// from the keyboard too), a run of many tasks pages, two runs ticked open their comparison with its
// deltas and chart, one task shows both runs' rollouts side by side, and the table follows a growing run. Screenshots go to a temp dir
// (printed as diagnostics; GYMNAST_VIEWER_SHOTS picks the dir).

import assert from 'node:assert/strict';
import { appendFile, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { findRuns } from '../../src/servers/viewer/run-files.js';
import type { ViewerServer } from '../../src/servers/viewer/viewer-server.js';
import { base, baseFailures, next, writeRun } from '../support/compared-runs.js';
import { syntheticRow, toLines } from '../support/synthetic-rows.js';
import { removeSpecFolder, skipWithoutChromium } from '../support/headless-chromium.js';
import { closeViewerInChromium, openViewerInChromium } from '../support/viewer-in-chromium.js';

const skip = skipWithoutChromium;

/** 250 tasks of 4 rollouts: task t solved by its first t mod 5 rollouts (capped at 4), so rewards vary task to task. */
const wide = Array.from({ length: 250 }, (_, task) =>
  [0, 1, 2, 3].map((rollout) => ({ task, rollout, reward: rollout < task % 5 ? 1 : 0, turns: 1 + ((task + rollout) % 3) })),
).flat();

describe('gymnast view: the per-task table and two runs compared, in a headless browser', { skip, timeout: 60_000 }, () => {
  let dir: string;
  let server: ViewerServer;
  let browser: Browser;
  let page: Page;
  let shots: string;
  const problems: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gymnast-view-tasks-'));
    const runs = join(dir, 'runs');
    writeRun(runs, 'base', base, baseFailures);
    writeRun(runs, 'next', next);
    writeRun(runs, 'wide', wide);
    ({ server, browser, page, shots } = await openViewerInChromium({ runs: await findRuns(runs), followIntervalMs: 200 }, dir, problems));
  });
  after(async () => {
    await closeViewerInChromium({ browser, server });
    await removeSpecFolder(dir);
  });

  const open = async (hash: string) => {
    await page.goto(`${server.url}/${hash}`);
    await page.waitForLoadState('networkidle');
  };
  const noProblems = () => assert.deepEqual(problems.splice(0), []);
  // Browser-side code is given as strings: the project compiles without the DOM library.
  const firstColumn = (table: string) => page.$$eval(`table.${table} tbody th`, (cells) => cells.map((cell) => cell.textContent ?? ''));
  const waitForOrder = (table: string, tasks: number[]) =>
    page.waitForFunction(`[...document.querySelectorAll('table.${table} tbody th')].map((th) => th.textContent).join(',') === '${tasks.join(',')}'`);
  const shoot = async (t: { diagnostic: (message: string) => void }, name: string) => {
    const file = join(shots, name);
    await page.screenshot({ path: file, fullPage: true });
    assert.ok((await stat(file)).size > 10_000);
    t.diagnostic(`screenshot: ${file}`);
  };

  it('reaches the per-task table from the overview, most reward variance first', async (t) => {
    await open('#/run/base');
    await page.locator('.tile', { hasText: 'tasks' }).locator('a').click();
    await waitForOrder('tasks', [0, 2, 1, 3]);
    assert.match(page.url(), /#\/run\/base\/tasks$/);
    assert.equal(await page.getAttribute('th[aria-sort="descending"] button', 'data-sort'), 'reward_variance');
    const cells = await page.$$eval('table.tasks tbody tr:first-child td', (tds) => tds.map((td) => td.textContent));
    // rollouts, pass@4, mean reward, variance (÷ n), mean turns, mean tokens, failures of task 0.
    assert.deepEqual(cells, ['4', '1', '0.75', '0.1875', '1.5', '32', '0']);
    assert.equal(await page.locator('table.tasks tbody tr[data-task="1"] td.failures').textContent(), '1');
    assert.equal(await page.locator('#crumbs a', { hasText: 'tasks' }).count(), 1, 'the crumbs link the tasks');
    await shoot(t, 'tasks.png');
    noProblems();
  });

  it('sorts by a header, flips on a second click, and works from the keyboard', async () => {
    await open('#/run/base/tasks');
    await waitForOrder('tasks', [0, 2, 1, 3]);
    await page.click('button.sort[data-sort="mean_reward"]');
    await waitForOrder('tasks', [3, 0, 2, 1]);
    assert.equal(await page.getAttribute('th[aria-sort="descending"] button', 'data-sort'), 'mean_reward');
    assert.match(page.url(), /sort=-mean_reward/, 'the sort is kept in the address');
    await page.click('button.sort[data-sort="mean_reward"]');
    await waitForOrder('tasks', [1, 2, 0, 3]);
    assert.equal(await page.getAttribute('th[aria-sort="ascending"] button', 'data-sort'), 'mean_reward');
    assert.equal(await page.locator('th[aria-sort="none"]').count(), 7);
    // Focus stays on the header just used; Tab reaches the next one, Enter sorts by it.
    assert.equal(await page.evaluate('document.activeElement?.dataset.sort'), 'mean_reward');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await waitForOrder('tasks', [0, 2, 1, 3]);
    assert.equal(await page.getAttribute('th[aria-sort="descending"] button', 'data-sort'), 'reward_variance');
    await page.click('table.tasks tbody th a >> text=2');
    await page.locator('h1', { hasText: 'Task 2' }).waitFor();
    noProblems();
  });

  it('pages a run of many tasks, a hundred at a time', async (t) => {
    await open('#/run/wide/tasks?sort=task');
    await page.waitForFunction(`document.querySelectorAll('table.tasks tbody tr').length === 100`);
    assert.match((await page.locator('.summary').textContent()) ?? '', /1–100 of 250 tasks/);
    await page.click('button:has-text("Last »")');
    await page.waitForFunction(`document.querySelectorAll('table.tasks tbody tr').length === 50`);
    assert.deepEqual((await firstColumn('tasks')).slice(0, 2), ['200', '201']);
    await shoot(t, 'tasks-wide.png');
    noProblems();
  });

  it('compares two runs ticked in the runs list: deltas sorted, tasks only in one run counted, the distributions drawn', async (t) => {
    await open('#/');
    await page.locator('table.data tbody input.pick').first().waitFor();
    assert.equal(await page.isDisabled('#compare-runs'), true);
    await page.check('input[aria-label="compare base"]');
    await page.check('input[aria-label="compare next"]');
    assert.equal(await page.locator('#compare-hint').textContent(), 'A: base, B: next');
    await shoot(t, 'runs-compare.png');
    await page.click('#compare-runs');
    await waitForOrder('compare-tasks', [2, 0, 1]);
    assert.match(page.url(), /#\/compare\/base\/next$/);
    assert.deepEqual(await page.$$eval('table.compare-tasks tbody td.delta', (cells) => cells.map((cell) => cell.textContent)), ['−0.125', '+0.25', '+0.5']);
    const tile = async (name: string) => page.locator('.tile', { hasText: name }).locator('dd').first().textContent();
    assert.match((await tile('tasks in both')) ?? '', /^3/);
    assert.match((await tile('only in A')) ?? '', /^1/);
    assert.match((await tile('only in B')) ?? '', /^1/);
    assert.equal(await page.locator('svg.paired rect.pair.series-0').count(), 10);
    assert.equal(await page.locator('svg.paired .axis-title').count(), 2);
    await page.click('button.sort[data-sort="delta"]');
    await waitForOrder('compare-tasks', [1, 0, 2]);
    assert.equal(await page.getAttribute('th[aria-sort="descending"] button', 'data-sort'), 'delta');
    await shoot(t, 'compare.png');
    noProblems();
  });

  it("shows one task's rollouts of both runs side by side", async (t) => {
    await open('#/compare/base/next');
    await page.click('table.compare-tasks tbody th a >> text=1');
    await page.locator('.run-side .rollout-card').first().waitFor();
    assert.match(page.url(), /#\/compare\/base\/next\/task\/1$/);
    const sides = page.locator('.run-pair > .run-side');
    assert.equal(await sides.count(), 2);
    assert.equal(await sides.nth(0).locator('.rollout-card').count(), 3, "base's two successes and its failure");
    assert.equal(await sides.nth(1).locator('.rollout-card').count(), 2);
    assert.match((await sides.nth(1).textContent()) ?? '', /it is two/);
    const [left, right] = await Promise.all([0, 1].map(async (i) => (await sides.nth(i).boundingBox())!));
    assert.ok(right!.x >= left!.x + left!.width && Math.abs(right!.y - left!.y) < 2, 'A on the left, B on the right, level');
    await shoot(t, 'compare-task.png');
    // A task only one run has: that side says so.
    await open('#/compare/base/next/task/3');
    await page.locator('.run-side').nth(1).locator('[role="alert"]').waitFor();
    assert.equal(await page.locator('.run-side').nth(0).locator('.rollout-card').count(), 2);
    assert.ok(problems.splice(0).every((problem) => /404/.test(problem)));
  });

  it('updates the task table in place while the run grows', async () => {
    await open('#/run/next/tasks?sort=task');
    await waitForOrder('tasks', [0, 1, 2, 4]);
    // Task 4 gets a second rollout, rewarded 1: rewards 0, 1, so mean 0.5, variance 0.25, pass@2 1.
    await appendFile(join(dir, 'runs', 'next', 'rollouts.jsonl'), toLines([syntheticRow({ task: 4, rollout: 1, reward: 1 })]));
    await page.waitForFunction(`document.querySelector('table.tasks tr[data-task="4"] td.variance')?.textContent === '0.25'`, undefined, { timeout: 6000 });
    assert.equal(await page.locator('table.tasks tr[data-task="4"] td.rollouts').textContent(), '2');
    assert.equal(await page.locator('table.tasks tr[data-task="4"] td.pass').textContent(), '1');
    noProblems();
  });
});
