// The overview's charts in a real headless Chromium (Debian's /usr/bin/chromium through
// playwright-core), over runs made by `gymnast collect`: every chart titles both axes, integer data
// (tokens, turns, k) gets integer ticks, a run of one rollout (every axis single-valued) shows one
// labelled bar or point and no NaN, and no label is cut: tick text stays inside its chart and the
// category names (health checks such as runaway-generation) are shown whole. Screenshots go to a temp
// dir (GYMNAST_VIEWER_SHOTS picks it).

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
import { removeSpecFolder, skipWithoutChromium } from '../support/headless-chromium.js';
import { closeViewerInChromium, openViewerInChromium } from '../support/viewer-in-chromium.js';

const skip = skipWithoutChromium;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const collect = (output: string, ...args: string[]) =>
  promisify(execFile)(process.execPath, ['bin/gymnast.js', 'collect', '--input', 'examples/arithmetic.jsonl', '--output', output, ...args], { cwd: ROOT });

interface Chart {
  label: string;
  xTicks: string[];
  yTicks: string[];
  titles: string[];
  /** Text that reaches past the chart's drawing area. */
  outside: string[];
}

describe("the overview's charts in a headless browser", { skip, timeout: 90_000 }, () => {
  let dir: string;
  let server: ViewerServer;
  let browser: Browser;
  let page: Page;
  let shots: string;
  const problems: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gymnast-charts-'));
    await Promise.all([
      // Hot, long and cut short: spread-out token counts, pass@k to k = 30, runaway generations.
      collect(join(dir, 'runs', 'k30.jsonl'), '--limit', '4', '--num-repeats', '30', '--temperature', '2', '--seed', '5', '--max-tokens', '40'),
      collect(join(dir, 'runs', 'one.jsonl'), '--limit', '1', '--num-repeats', '1'),
    ]);
    ({ server, browser, page, shots } = await openViewerInChromium({ runs: await findRuns(join(dir, 'runs')) }, dir, problems));
  });
  after(async () => {
    await closeViewerInChromium({ browser, server });
    await removeSpecFolder(dir);
  });

  /** Each chart of the overview: its ticks, axis titles, and any text drawn outside its viewBox. */
  const charts = async (run: string, shot: string) => {
    await page.goto(`${server.url}/#/run/${run}`);
    await page.locator('svg.chart').first().waitFor();
    await page.screenshot({ path: join(shots, shot), fullPage: true });
    // Browser-side code as a string: the project compiles without the DOM library.
    return (await page.evaluate(`[...document.querySelectorAll('svg.chart')].map((svg) => {
      const box = svg.viewBox.baseVal;
      const texts = (selector) => [...svg.querySelectorAll(selector)].map((t) => t.textContent);
      const outside = [...svg.querySelectorAll('text')].filter((t) => {
        const b = t.getBBox();
        const m = t.getCTM() ? svg.getCTM().inverse().multiply(t.getCTM()) : null;
        const rotated = m && Math.abs(m.b) > 0.5;
        const [w, h] = rotated ? [b.height, b.width] : [b.width, b.height];
        const x = rotated ? m.e + b.y * m.c : b.x;
        const y = rotated ? m.f - b.x - b.width : b.y;
        return x < box.x - 0.5 || y < box.y - 0.5 || x + w > box.x + box.width + 0.5 || y + h > box.y + box.height + 0.5;
      }).map((t) => t.textContent);
      return { label: svg.getAttribute('aria-label').split(':')[0], xTicks: texts('.x-tick'), yTicks: texts('.y-tick'), titles: texts('.axis-title'), outside };
    })`)) as Chart[];
  };

  it('titles both axes of every chart, ticks integer data with integers, and cuts no label', async () => {
    const all = await charts('k30', 'charts-k30.png');
    assert.equal(all.length, 4, 'pass@k and three histograms');
    for (const chart of all) {
      assert.equal(chart.titles.length, 2, `${chart.label}: two axis titles`);
      assert.ok(chart.titles.every((title) => title.length > 0));
      assert.deepEqual(chart.outside, [], `${chart.label}: text outside the chart`);
      assert.ok(chart.yTicks.every((tick) => !Number.isNaN(Number(tick))));
    }
    const byLabel = new Map(all.map((chart) => [chart.label, chart]));
    const tokens = byLabel.get('tokens per rollout')!;
    assert.deepEqual(tokens.titles, ['tokens', 'rollouts']);
    assert.ok(tokens.xTicks.length >= 3, `token ticks ${tokens.xTicks}`);
    for (const chart of [tokens, byLabel.get('turns per rollout')!]) {
      assert.ok(
        [...chart.xTicks, ...chart.yTicks].every((tick) => /^\d+$/.test(tick)),
        `${chart.label}: ticks ${chart.xTicks} / ${chart.yTicks}`,
      );
    }
    const passAtK = byLabel.get('pass@k')!;
    assert.equal(passAtK.titles[0], 'k');
    assert.ok(passAtK.xTicks.every((tick) => /^\d+$/.test(tick)) && passAtK.xTicks.includes('1') && passAtK.xTicks.includes('30'), `k ticks ${passAtK.xTicks}`);
    // Category names are shown whole, not cut with an ellipsis.
    const names = await page.$$eval('.category-bars .name', (all) => all.map((name) => [name.textContent, name.scrollWidth <= name.clientWidth + 1]));
    assert.ok(names.some(([name]) => name === 'runaway-generation'));
    assert.deepEqual(
      names.filter(([, whole]) => !whole),
      [],
    );
    assert.deepEqual(problems.splice(0), []);
  });

  it('shows a single-valued axis as one labelled bar or point', async () => {
    const all = await charts('one', 'charts-one.png');
    const byLabel = new Map(all.map((chart) => [chart.label, chart]));
    // One rollout, sampled: its reward, turns and tokens vary from run to run, but each axis has the one value.
    for (const label of ['reward histogram', 'turns per rollout', 'tokens per rollout'])
      assert.match(byLabel.get(label)!.xTicks.join(' '), /^\d+$/, `${label}: one integer tick`);
    assert.deepEqual(byLabel.get('pass@k')!.xTicks, ['1']);
    assert.equal(await page.locator('svg.chart rect.bar').count(), 3, 'one bar per histogram');
    for (const chart of all) {
      assert.deepEqual(chart.yTicks.at(-1), '1', `${chart.label}: y up to 1`);
      assert.ok(![...chart.xTicks, ...chart.yTicks].some((tick) => /NaN|Infinity/.test(tick)));
    }
    assert.equal(await page.locator('svg.chart [x="NaN"], svg.chart [y="NaN"], svg.chart [height="NaN"]').count(), 0);
    assert.deepEqual(problems.splice(0), []);
  });
});
