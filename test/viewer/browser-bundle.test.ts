// `gymnast view RUN --bundle DIR` opened from disk (file://) in a real headless Chromium (Debian's
// /usr/bin/chromium through playwright-core), with no server: the overview, the rollouts list (its
// filters and text search work in the page), a rollout with its tokens, and a group with its
// advantages and expected answer, without page or console errors and without a request that is not
// file://. Screenshots go to a temp dir (GYMNAST_VIEWER_SHOTS picks it).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openPage, removeSpecFolder, screenshotsFolder, skipWithoutChromium } from '../support/headless-chromium.js';

const skip = skipWithoutChromium;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const gymnast = (...args: string[]) => promisify(execFile)(process.execPath, ['bin/gymnast.js', ...args], { cwd: ROOT });

interface Row {
  reward: number;
  _ng_task_index: number;
}

describe('a bundle opened from disk in a headless browser', { skip, timeout: 90_000 }, () => {
  let dir: string;
  let bundle: string;
  let rows: Row[];
  let browser: Browser;
  let page: Page;
  let shots: string;
  const problems: string[] = [];
  const requests: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gymnast-bundle-browser-'));
    // Sampled hot and cut short: rewards and terminations vary.
    const run = join(dir, 'runs', 'hot.jsonl');
    await gymnast(
      'collect',
      '--input',
      'examples/arithmetic.jsonl',
      '--num-repeats',
      '4',
      '--temperature',
      '3',
      '--seed',
      '7',
      '--max-tokens',
      '3',
      '--output',
      run,
    );
    rows = (await readFile(run, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Row);
    bundle = join(dir, 'bundle');
    const { stdout } = await gymnast('view', run, '--bundle', bundle);
    assert.match(stdout, /wrote a static copy of a run, 64 rollouts to .* \(\d+\.\d MB in \d+ files\); open .*index\.html/);
    shots = await screenshotsFolder(dir);
    browser = await launchChromium();
    page = await openPage(browser, problems);
    page.on('request', (request) => requests.push(request.url()));
  });
  after(async () => {
    await browser?.close();
    await removeSpecFolder(dir);
  });

  const open = async (hash: string) => {
    await page.goto(`${pathToFileURL(join(bundle, 'index.html')).href}${hash}`);
    await page.waitForLoadState('networkidle');
  };
  const noProblems = () => {
    assert.deepEqual(problems.splice(0), []);
    assert.deepEqual(
      requests.splice(0).filter((url) => !url.startsWith('file://')),
      [],
    );
  };
  const listed = (n: number) => page.waitForFunction(`document.querySelectorAll('table.rollouts tbody tr a.row-link').length === ${n}`);

  it('shows the overview, its charts, and says it is a static copy', async (t) => {
    await open('#/run/hot');
    await page.locator('.tiles').waitFor();
    assert.equal(await page.locator('.tiles dd').first().textContent(), '64');
    assert.equal(await page.locator('svg.chart').count(), 4);
    const tokenTicks = await page.$$eval('svg.chart[aria-label^="tokens per rollout"] .tick', (ticks) => ticks.map((tick) => tick.textContent ?? ''));
    assert.ok(tokenTicks.length >= 3 && tokenTicks.every((tick) => /^\d+$/.test(tick)), `token counts tick as integers: ${tokenTicks}`);
    assert.match((await page.locator('#live-status').textContent()) ?? '', /^static copy, written /);
    await page.screenshot({ path: join(shots, 'bundle-overview.png'), fullPage: true });
    t.diagnostic(`screenshot: ${join(shots, 'bundle-overview.png')}`);
    await open('#/');
    await page.locator('.compare .cards').waitFor();
    assert.deepEqual(await page.$$eval('table.data tbody th a', (links) => links.map((a) => a.textContent)), ['hot']);
    noProblems();
  });

  it('lists the rollouts, pages them, and filters and searches them in the page', async (t) => {
    await open('#/run/hot/rollouts');
    await listed(50);
    assert.match((await page.locator('.summary').textContent()) ?? '', /1–50 of 64 rollouts/);
    await page.click('button:has-text("Next ›")');
    await listed(14);

    await page.fill('#f-task', '3');
    await listed(4);
    assert.deepEqual(new Set(await page.$$eval('table.rollouts tbody tr td:nth-child(2)', (cells) => cells.map((cell) => cell.textContent))), new Set(['3']));
    assert.match(page.url(), /task=3/, 'the filter is kept in the address');

    await page.click('button:has-text("Clear")');
    await listed(50);
    await page.fill('#f-min-reward', '0.5');
    const rewarded = rows.filter((row) => row.reward >= 0.5).length;
    assert.ok(rewarded > 0 && rewarded < 50);
    await listed(rewarded);
    await page.click('button.sort[data-sort="reward"]');
    await page.waitForFunction(`document.querySelector('th[aria-sort="ascending"]') !== null`);
    assert.deepEqual(new Set(await page.$$eval('table.rollouts td.reward', (cells) => cells.map((cell) => cell.textContent))), new Set(['1']));

    await page.click('button:has-text("Clear")');
    await page.fill('#f-q', 'what is 50+37');
    await listed(4);
    assert.deepEqual(new Set(await page.$$eval('table.rollouts tbody tr td:nth-child(2)', (cells) => cells.map((cell) => cell.textContent))), new Set(['0']));
    await page.screenshot({ path: join(shots, 'bundle-rollouts.png'), fullPage: true });
    t.diagnostic(`screenshot: ${join(shots, 'bundle-rollouts.png')}`);
    noProblems();
  });

  it('shows a rollout with its tokens, and a group with its advantages and expected answer', async (t) => {
    await open('#/run/hot/rollouts?sort=task');
    await listed(50);
    const first = (await page.locator('a.row-link').first().textContent())!;
    await page.locator('a.row-link').first().click();
    await page.locator('h1', { hasText: `Rollout ${first}` }).waitFor();
    await page.locator('.token-view').waitFor();
    assert.ok((await page.locator('.tokens .tok.trained').count()) > 0, 'trained tokens are shown');
    assert.ok((await page.locator('.msg.role-assistant').count()) >= 1);
    await page.screenshot({ path: join(shots, 'bundle-rollout.png'), fullPage: true });

    await page.click('a:has-text("All rollouts of task 0")');
    await page.locator('.group-grid .column').first().waitFor();
    assert.equal(await page.locator('.group-grid .column').count(), 4);
    assert.equal(await page.locator('.group-grid .advantage').count(), 4);
    assert.equal(await page.locator('.expected code').textContent(), '87');
    await page.screenshot({ path: join(shots, 'bundle-group.png'), fullPage: true });
    t.diagnostic(`screenshot: ${join(shots, 'bundle-group.png')}`);
    noProblems();
  });

  it("shows the run's task table from disk, sorted by a header in the page", async (t) => {
    const order = () => page.$$eval('table.tasks tbody th', (cells) => cells.map((cell) => Number(cell.textContent)));
    const meanReward = (task: number) => {
      const scored = rows.filter((row) => row._ng_task_index === task).map((row) => row.reward);
      return scored.length === 0 ? -Infinity : scored.reduce((a, b) => a + b, 0) / scored.length;
    };
    await open('#/run/hot/tasks');
    await page.waitForFunction(`document.querySelectorAll('table.tasks tbody tr').length === 16`);
    await page.click('button.sort[data-sort="mean_reward"]');
    await page.waitForFunction(`/sort=-mean_reward/.test(location.hash)`);
    await page.waitForFunction(`document.querySelector('th[aria-sort="descending"] button')?.dataset.sort === 'mean_reward'`);
    const shown = (await order()).map(meanReward);
    assert.deepEqual(
      shown,
      [...shown].sort((a, b) => b - a),
      'most mean reward first',
    );
    await page.screenshot({ path: join(shots, 'bundle-tasks.png'), fullPage: true });
    t.diagnostic(`screenshot: ${join(shots, 'bundle-tasks.png')}`);
    noProblems();
  });

  it('shows the run\'s timeline from disk: a lane per rollout under "no server" (the embedded model), a lane opening its rollout', async (t) => {
    await open('#/run/hot');
    await page.locator('a', { hasText: 'Timeline' }).click();
    await page.locator('svg.timeline').waitFor();
    assert.deepEqual(await page.$$eval('svg.timeline text.replica-heading', (headings) => headings.map((heading) => heading.textContent)), [
      'no server · 64 rollouts',
    ]);
    assert.equal(await page.locator('svg.timeline a.lane').count(), 64);
    assert.ok((await page.locator('svg.timeline rect.gen').count()) >= 64);
    await page.screenshot({ path: join(shots, 'bundle-timeline.png'), fullPage: true });
    t.diagnostic(`screenshot: ${join(shots, 'bundle-timeline.png')}`);
    const lane = page.locator('svg.timeline a.lane').first();
    const id = await lane.getAttribute('data-id');
    await lane.locator('text.lane-label').click();
    await page.locator('.token-view').waitFor();
    assert.match(page.url(), new RegExp(`#/run/hot/rollout/${id}$`));
    noProblems();
  });

  it('says so when a page asks for what the bundle does not hold', async () => {
    await open('#/run/hot/rollout/o999');
    assert.match((await page.locator('[role="alert"]').textContent()) ?? '', /not in this bundle/);
    problems.splice(0);
    requests.splice(0);
  });
});
