// gymnast view --api-key in a real headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): the address the CLI opens carries the key once, the viewer trades it for an
// HttpOnly, SameSite=Strict cookie and drops it from the address, and the app then works as without
// a key; a browser without the key gets a 401 that says how to get in.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { findRuns } from '../../src/servers/viewer/run-files.js';
import { ViewerServer } from '../../src/servers/viewer/viewer-server.js';
import { syntheticRow, toLines } from '../support/synthetic-rows.js';
import { launchChromium, recordProblems, skipWithoutChromium } from '../support/headless-chromium.js';

const skip = skipWithoutChromium;
const KEY = 'open sesame/+&=';

describe('gymnast view --api-key in a headless browser', { skip, timeout: 60_000 }, () => {
  let dir: string;
  let server: ViewerServer;
  let browser: Browser;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gymnast-view-key-'));
    await writeFile(
      join(dir, 'out.jsonl'),
      toLines(Array.from({ length: 8 }, (_, i) => syntheticRow({ task: Math.floor(i / 2), rollout: i % 2, reward: i % 2 }))),
    );
    server = await ViewerServer.open({ runs: await findRuns(join(dir, 'out.jsonl')), apiKey: KEY });
    await server.start();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('opens the address with the key once, then browses on a cookie no script can read, the key gone from the address', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    recordProblems(page, problems);
    try {
      // As the CLI opens it, with a view of the app in the fragment.
      await page.goto(`${server.url}/?key=${encodeURIComponent(KEY)}#/run/out`);
      await page.locator('.tiles').waitFor();
      assert.equal(await page.locator('.tiles dd').first().textContent(), '8');
      assert.equal(page.url(), `${server.url}/#/run/out`, 'the key is out of the address, the view kept');
      const cookies = await context.cookies();
      assert.deepEqual(
        cookies.map(({ name, httpOnly, sameSite }) => ({ name, httpOnly, sameSite })),
        [{ name: `gymnast_view_${new URL(server.url).port}`, httpOnly: true, sameSite: 'Strict' }],
      );
      assert.ok(!cookies[0]!.value.includes('sesame'));
      assert.equal(await page.evaluate('document.cookie'), '', 'HttpOnly: no script of the page reads it');
      // The app's own API requests carry the cookie.
      await page.goto(`${server.url}/#/run/out/rollouts`);
      await page.waitForFunction(`document.querySelectorAll('table.rollouts tbody tr a.row-link').length === 8`);
      await page.locator('a.row-link').first().click();
      await page.locator('.token-view').waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('answers a browser without the key, or with a wrong one, 401 saying how to get in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      for (const address of [`${server.url}/`, `${server.url}/?key=wrong`, `${server.url}/api/runs`]) {
        const response = await page.goto(address);
        assert.equal(response?.status(), 401, address);
        assert.match(await response!.text(), /open the address gymnast view printed/, address);
      }
      assert.deepEqual(await context.cookies(), []);
    } finally {
      await context.close();
    }
  });
});
