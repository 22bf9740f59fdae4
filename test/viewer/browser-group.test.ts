// The group page in a real headless Chromium (Debian's /usr/bin/chromium through playwright-core),
// over runs made by `gymnast collect` with 8 and 16 rollouts a task: every rollout is on the page
// without scrolling sideways at 1280 and 800 px, each shows the advantage the GRPO trainer would give
// it, the group shows its mean and population std (or that it has no signal), and the task's expected
// answer is shown. Screenshots go to a temp dir (GYMNAST_VIEWER_SHOTS picks it).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { findRuns } from '../../src/servers/viewer/run-files.js';
import type { ViewerServer } from '../../src/servers/viewer/viewer-server.js';
import { groupAdvantages } from '../../src/train/group-advantages.js';
import { removeSpecFolder, skipWithoutChromium } from '../support/headless-chromium.js';
import { closeViewerInChromium, openViewerInChromium } from '../support/viewer-in-chromium.js';

const skip = skipWithoutChromium;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// Sampled hot and cut short: task 0's rewards differ, task 1's are all 0.
const collect = (repeats: number, output: string) =>
  promisify(execFile)(
    process.execPath,
    [
      'bin/gymnast.js',
      'collect',
      '--input',
      'examples/arithmetic.jsonl',
      '--limit',
      '2',
      '--num-repeats',
      String(repeats),
      '--temperature',
      '2',
      '--seed',
      '3',
      '--max-tokens',
      '4',
      '--output',
      output,
    ],
    { cwd: ROOT },
  );

interface Group {
  items: { id: string; reward: number | null; advantage: number | null }[];
  statistics: { mean: number; std: number; signal: boolean };
}

describe('the group page in a headless browser', { skip, timeout: 90_000 }, () => {
  let dir: string;
  let server: ViewerServer;
  let browser: Browser;
  let page: Page;
  let shots: string;
  const problems: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gymnast-group-'));
    await Promise.all([collect(8, join(dir, 'runs', 'n8.jsonl')), collect(16, join(dir, 'runs', 'n16.jsonl'))]);
    ({ server, browser, page, shots } = await openViewerInChromium({ runs: await findRuns(join(dir, 'runs')) }, dir, problems));
  });
  after(async () => {
    await closeViewerInChromium({ browser, server });
    await removeSpecFolder(dir);
  });

  const api = async <T>(path: string) => (await (await fetch(`${server.url}${path}`)).json()) as T;
  const openGroup = async (run: string, task: number, width: number) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${server.url}/#/run/${run}/group/${task}`);
    await page.locator('.group-grid .column').first().waitFor();
  };
  const overflow = () => page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]') as Promise<[number, number]>;

  for (const n of [8, 16]) {
    for (const width of [1280, 800]) {
      it(`shows all ${n} rollouts of a task at ${width} px without scrolling sideways`, async (t) => {
        await openGroup(`n${n}`, 0, width);
        assert.equal(await page.locator('.group-grid .column').count(), n);
        const [scrollWidth, clientWidth] = await overflow();
        assert.ok(scrollWidth <= clientWidth, `the page is ${scrollWidth} px wide in a ${clientWidth} px window`);
        // Each rollout's box lies inside the window.
        const rights = await page.$$eval('.group-grid .column', (columns) => columns.map((column) => column.getBoundingClientRect().right));
        assert.ok(Math.max(...rights) <= clientWidth, `a rollout ends at ${Math.max(...rights)} px`);
        const file = join(shots, `group-n${n}-${width}.png`);
        await page.screenshot({ path: file, fullPage: true });
        t.diagnostic(`screenshot: ${file}`);
        assert.deepEqual(problems.splice(0), []);
      });
    }
  }

  it("shows the group's mean, population std and each rollout's GRPO advantage, and the expected answer", async () => {
    const group = await api<Group>('/api/runs/n8/groups/0');
    const rewards = group.items.map((item) => item.reward!);
    assert.ok(group.statistics.signal, 'task 0 has rewards that differ');
    assert.deepEqual(
      group.items.map((item) => item.advantage),
      groupAdvantages(rewards),
    );
    await openGroup('n8', 0, 800);
    const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    const std = Math.sqrt(rewards.reduce((sum, r) => sum + (r - mean) ** 2, 0) / rewards.length);
    const tile = (name: string) => page.locator('.group-stats .tile', { has: page.locator(`dt:text-is("${name}")`) }).locator('dd');
    assert.match((await tile('mean reward').textContent()) ?? '', new RegExp(`^${Number(mean.toFixed(3))}`));
    assert.match((await tile('std').textContent()) ?? '', new RegExp(`^${Number(std.toFixed(3))}population`));
    // The page shows each rollout's advantage beside it, signed, as the trainer computes it.
    const shown = await page.$$eval('.group-grid .column', (columns) =>
      columns.map((column) => [column.getAttribute('aria-label'), column.querySelector('.advantage')?.textContent ?? '']),
    );
    const byId = new Map(group.items.map((item) => [`rollout ${item.id}`, item.advantage!]));
    for (const [label, text] of shown) {
      const advantage = byId.get(label!)!;
      assert.equal(text, `advantage ${advantage > 0 ? '+' : '−'}${Math.abs(advantage).toFixed(3)}`);
    }
    // Task 0 of examples/arithmetic.jsonl is "what is 50+37?", answer 87.
    assert.equal(await page.locator('.expected code').textContent(), '87');
    assert.match((await page.locator('.expected').textContent()) ?? '', /Expected answer \(answer\)/);
    assert.deepEqual(problems.splice(0), []);
  });

  it('says a group whose rewards are all equal has no signal, every advantage 0', async () => {
    const group = await api<Group>('/api/runs/n8/groups/1');
    assert.equal(group.statistics.signal, false);
    await openGroup('n8', 1, 800);
    assert.equal(
      await page.locator('.group-stats .tile', { hasText: 'advantage' }).locator('dd').textContent(),
      'no signalevery reward is the same: every advantage is 0',
    );
    assert.deepEqual(new Set(await page.$$eval('.group-grid .advantage', (all) => all.map((one) => one.textContent))), new Set(['advantage 0 (no signal)']));
    assert.deepEqual(problems.splice(0), []);
  });
});
