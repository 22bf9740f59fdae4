// The timeline page in a real headless Chromium (Debian's /usr/bin/chromium through playwright-core),
// over a run `gymnast collect` made against two replicas of the test inference server: one group of
// lanes per replica, headed by its URL, a lane per rollout under the replica of its first turn, a
// generation bar and an environment bar per turn, and a click on a lane opens its rollout. A run whose
// rows record no timing says so. Screenshots go to a temp dir (GYMNAST_VIEWER_SHOTS picks it).

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { findRuns } from '../../src/servers/viewer/run-files.js';
import type { ViewerServer } from '../../src/servers/viewer/viewer-server.js';
import type { InferenceServer } from '../../src/testing/index.js';
import type { RunTimeline } from '../../src/viewer/run-timeline.js';
import { removeSpecFolder, skipWithoutChromium } from '../support/headless-chromium.js';
import { closeViewerInChromium, openViewerInChromium } from '../support/viewer-in-chromium.js';
import { startTwoReplicas, twoReplicaCollect } from '../support/two-replica-collect.js';

const skip = skipWithoutChromium;

describe('the timeline page in a headless browser', { skip, timeout: 90_000 }, () => {
  let dir: string;
  let replicas: InferenceServer[] = [];
  let server: ViewerServer;
  let browser: Browser;
  let page: Page;
  let shots: string;
  const problems: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gymnast-timeline-'));
    replicas = await startTwoReplicas();
    const output = join(dir, 'runs', 'fleet.jsonl');
    const run = await twoReplicaCollect(replicas, output);
    assert.equal(run.code, 0, run.stderr);
    // The same rows as an older gymnast wrote them: no started_at.
    const old = (await readFile(output, 'utf8')).replace(/"started_at":\d+,/g, '');
    await mkdir(join(dir, 'old'));
    await writeFile(join(dir, 'old', 'old.jsonl'), old);
    ({ server, browser, page, shots } = await openViewerInChromium(
      { runs: [...(await findRuns(output)), ...(await findRuns(join(dir, 'old')))] },
      dir,
      problems,
    ));
  });
  after(async () => {
    await closeViewerInChromium({ browser, server });
    await Promise.all(replicas.map((replica) => replica.close()));
    await removeSpecFolder(dir);
  });

  it('is linked from the overview, groups the lanes by replica, and draws a generation and an environment bar per turn', async (t) => {
    const timeline = (await (await fetch(`${server.url}/api/runs/fleet/timeline`)).json()) as RunTimeline;
    await page.goto(`${server.url}/#/run/fleet`);
    await page.locator('a', { hasText: 'Timeline' }).click();
    await page.locator('svg.timeline').waitFor();
    assert.match(page.url(), /#\/run\/fleet\/timeline$/);
    // The SVG's headings and lanes in drawing order: each lane belongs to the heading above it.
    const drawn = (await page.$$eval('svg.timeline > text.replica-heading, svg.timeline > a.lane', (nodes) =>
      nodes.map((node) => (node.matches('a') ? { lane: node.getAttribute('data-id') } : { heading: node.textContent })),
    )) as ({ lane: string } | { heading: string })[];
    const headings = drawn.filter((entry) => 'heading' in entry).map((entry) => entry.heading.split(' · ')[0]);
    assert.deepEqual(headings, replicas.map((replica) => replica.url).sort(), 'one group per replica, headed by its URL');
    const byId = new Map(timeline.items.map((item) => [item.id, item]));
    let heading = '';
    for (const entry of drawn) {
      if ('heading' in entry) heading = entry.heading.split(' · ')[0]!;
      else assert.equal(byId.get(entry.lane)!.turns[0]!.server, heading, `lane ${entry.lane} is under its first turn's replica`);
    }
    assert.equal(drawn.filter((entry) => 'lane' in entry).length, 12);
    const turns = timeline.items.reduce((sum, item) => sum + item.turns.length, 0);
    assert.ok(turns > 12, 'some rollouts took two turns');
    assert.equal(await page.locator('svg.timeline rect.gen').count(), turns);
    assert.equal(await page.locator('svg.timeline rect.env').count(), turns);
    const title = await page.locator('svg.timeline rect.gen title').first().textContent();
    assert.match(title ?? '', /^rollout [of]\d+ \(task \d+, rollout \d+\), turn 0: generation .+, environment .+, server http:\/\/127\.0\.0\.1:\d+$/);
    const file = join(shots, 'timeline.png');
    await page.screenshot({ path: file, fullPage: true });
    t.diagnostic(`screenshot: ${file}`);
    assert.deepEqual(problems.splice(0), []);
  });

  it('opens the rollout of a lane clicked', async () => {
    await page.goto(`${server.url}/#/run/fleet/timeline`);
    const lane = page.locator('svg.timeline a.lane').nth(3);
    const id = await lane.getAttribute('data-id');
    await lane.locator('text.lane-label').click();
    await page.waitForURL(new RegExp(`#/run/fleet/rollout/${id}$`));
    await page.locator('.token-view').waitFor();
    assert.deepEqual(problems.splice(0), []);
  });

  it('says when the rows record no timing', async () => {
    await page.goto(`${server.url}/#/run/old/timeline`);
    const note = page.locator('.timeline-none');
    await note.waitFor();
    assert.match((await note.textContent()) ?? '', /do not record timing.*collect it again with this gymnast/);
    assert.equal(await page.locator('svg.timeline').count(), 0);
    assert.deepEqual(problems.splice(0), []);
  });
});
