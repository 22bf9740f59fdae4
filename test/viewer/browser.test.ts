// The viewer in a real headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core):
// every page loads without console or page errors, the table's filters and sort reach the server
// and the rows shown match, the token view colours trained tokens by logprob and greys the rest,
// row text is shown as text, live refresh follows the run's version and stops while hidden.
// Screenshots of the overview and the token view go to a temp dir (printed as a diagnostic).

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startStubViewer, stubItems, type StubViewer } from './stub-viewer-api.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

describe('gymnast view in a headless browser', { skip, timeout: 60_000 }, () => {
  let viewer: StubViewer;
  let browser: Browser;
  let page: Page;
  let shots: string;
  const problems: string[] = [];

  before(async () => {
    viewer = await startStubViewer();
    shots = process.env.GYMNAST_VIEWER_SHOTS ?? (await mkdtemp(join(tmpdir(), 'gymnast-viewer-')));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  });
  after(async () => {
    await browser?.close();
    await viewer?.close();
  });

  const open = async (hash: string) => {
    await page.goto(`${viewer.url}/${hash}`);
    await page.waitForLoadState('networkidle');
  };
  const noProblems = () => assert.deepEqual(problems.splice(0), []);
  // Browser-side code is given as strings: the project compiles without the DOM library.
  const rows = (n: number) => page.waitForFunction(`document.querySelectorAll('table.rollouts tbody tr').length === ${n}`);
  const column = (name: string) => page.$$eval(`table.rollouts tbody td.${name}`, (cells) => cells.map((cell) => cell.textContent ?? ''));

  it('lists the runs and compares their pass@k side by side', async () => {
    await open('#/');
    await page.locator('.compare .cards').waitFor();
    assert.deepEqual(await page.$$eval('table.data tbody th a', (links) => links.map((a) => a.textContent)), ['demo', 'other']);
    assert.equal(await page.locator('.compare .series').count(), 2);
    assert.equal(await page.locator('.compare .cards .card').count(), 2);
    noProblems();
  });

  it('shows a run overview with its charts', async (t) => {
    await open('#/run/demo');
    await page.locator('.tiles').waitFor();
    const tiles = await page.$$eval('.tiles dt', (dts) => dts.map((dt) => dt.textContent));
    assert.deepEqual(tiles.slice(0, 5), ['rollouts', 'failures', 'tasks', 'mean reward', 'token drift']);
    assert.equal(await page.locator('svg.chart').count(), 4, 'pass@k and three histograms');
    assert.equal(await page.locator('svg.chart .dot').count(), 4, 'pass@k at k = 1..4');
    assert.ok((await page.locator('.category-bars li').count()) >= 4, 'terminations and failure classes');
    const file = join(shots, 'overview.png');
    await page.screenshot({ path: file, fullPage: true });
    assert.ok((await stat(file)).size > 20_000);
    t.diagnostic(`screenshot: ${file}`);
    noProblems();
  });

  it('filters the table by termination and reward, and sorts it', async () => {
    await open('#/run/demo/rollouts');
    await page.locator('table.rollouts tbody tr').first().waitFor();
    assert.equal(await page.locator('table.rollouts tbody tr').count(), 24);

    await page.selectOption('#f-termination', 'max-turns');
    await rows(6);
    assert.deepEqual(new Set(await column('termination')), new Set(['max-turns']));
    assert.match(page.url(), /termination=max-turns/, 'the filter is kept in the address');

    await page.fill('#f-min-reward', '0.5');
    const expected = stubItems('demo').filter((item) => item.termination === 'max-turns' && item.reward! >= 0.5).length;
    await rows(expected);
    for (const reward of await column('reward')) assert.ok(Number(reward) >= 0.5, reward);

    await page.click('button:has-text("Clear")');
    await rows(24);
    await page.click('button.sort[data-sort="reward"]');
    await page.click('button.sort[data-sort="reward"]');
    await page.waitForFunction(`document.querySelector('th[aria-sort="descending"]') !== null && document.querySelector('table.rollouts tbody td.reward')?.textContent === '1'`);
    const rewards = (await column('reward')).filter((r) => r !== '—').map(Number);
    assert.deepEqual(rewards, [...rewards].sort((a, b) => b - a));
    assert.ok(viewer.requests.some((path) => path.includes('sort=-reward')));

    await page.fill('#f-q', 'what is 3+');
    await rows(4);
    noProblems();
  });

  it('is usable from the keyboard: arrows move between rows, Enter opens one', async () => {
    await open('#/run/demo/rollouts?sort=task');
    await page.locator('a.row-link').first().focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), '0-1');
    await page.keyboard.press('Enter');
    await page.locator('h1', { hasText: 'Rollout 0-1' }).waitFor();
    noProblems();
  });

  it('shows a rollout: conversation, turns, and tokens coloured by logprob with the loss mask', async (t) => {
    await open('#/run/demo/rollout/1-1');
    await page.locator('.token-view').waitFor();
    assert.equal(await page.locator('.msg').count(), 5);
    assert.equal(await page.locator('.tool-call code').first().textContent(), 'calculator');
    assert.equal(await page.locator('.msg b').count(), 0, 'markup in a message is text');
    assert.match((await page.locator('.msg.role-system pre').textContent()) ?? '', /<b>not bold<\/b>/);
    assert.equal(await page.locator('.tokens script').count(), 0, 'a token that reads <script> is text');

    const trained = await page.$$eval('.tokens .tok.trained', (spans) => spans.map((span) => ({ bg: span.getAttribute('style') ?? '', title: span.getAttribute('title') ?? '' })));
    const context = await page.$$eval('.tokens .tok.context', (spans) => spans.map((span) => ({ bg: span.getAttribute('style') ?? '', title: span.getAttribute('title') ?? '' })));
    assert.equal(trained.length, 5);
    assert.equal(context.length, 6);
    assert.ok(trained.every((one) => /background-color/.test(one.bg) && /logprob -?\d/.test(one.title) && /trained/.test(one.title)));
    assert.equal(new Set(trained.map((one) => one.bg)).size, 5, 'five logprobs, five colours');
    assert.ok(context.every((one) => one.bg === '' && /not trained/.test(one.title)));
    assert.equal(await page.locator('.tokens .tok.drift').count(), 1);
    assert.equal(await page.locator('.tokens .tok', { hasText: '⟨3⟩' }).count(), 1, 'a token without text shows its id');

    const file = join(shots, 'tokens.png');
    await page.locator('section.block', { has: page.locator('.token-view') }).screenshot({ path: file });
    assert.ok((await stat(file)).size > 5_000);
    t.diagnostic(`screenshot: ${file}`);
    await page.screenshot({ path: join(shots, 'rollout.png'), fullPage: true });
    noProblems();
  });

  it('shows the rollouts of one task side by side', async () => {
    await open('#/run/demo/group/2');
    await page.locator('.side-by-side .column').first().waitFor();
    assert.equal(await page.locator('.side-by-side .column').count(), 4);
    noProblems();
  });

  it('refreshes the overview when the run grows, and stops polling while the tab is hidden', async () => {
    await open('#/run/demo');
    const overviews = () => viewer.requests.filter((path) => path === '/api/runs/demo/overview').length;
    const before = overviews();
    viewer.bump('demo');
    const deadline = Date.now() + 5000;
    while (overviews() === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(overviews() > before, 'a new version refreshes the overview');

    await page.evaluate(`Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'))`);
    const polls = viewer.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 2600));
    assert.equal(viewer.requests.length, polls, 'no requests while hidden');
    noProblems();
  });

  it('says so when a run does not exist', async () => {
    await open('#/run/nope');
    assert.match((await page.locator('[role="alert"]').textContent()) ?? '', /no run nope/);
    const failed = problems.splice(0);
    assert.ok(failed.every((p) => /404/.test(p)), failed.join('\n'));
  });
});
