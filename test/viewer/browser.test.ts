// gymnast view in a real headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core),
// served by the real ViewerServer over runs made by `gymnast collect`: every page loads without
// console or page errors, the table's filters and sort reach the server and the rows shown match,
// the token view colours trained tokens by logprob and greys the rest, drift is marked, a text-only
// policy's run shows its own verdict and its unchecked turns, the page follows a run that grows and
// stops polling while the tab is hidden. Screenshots of the overview
// and the token view go to a temp dir (printed as diagnostics; GYMNAST_VIEWER_SHOTS picks the dir).

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { findRuns } from '../../src/servers/viewer/run-files.js';
import { ViewerServer } from '../../src/servers/viewer/viewer-server.js';
import type { InferenceServer } from '../../src/testing/index.js';
import { startServers } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';
import { launchChromium, openPage, removeSpecFolder, screenshotsFolder, skipWithoutChromium } from '../support/headless-chromium.js';

const skip = skipWithoutChromium;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const collect = (...args: string[]) =>
  promisify(execFile)(process.execPath, ['bin/gymnast.js', 'collect', '--input', 'examples/arithmetic.jsonl', '--num-repeats', '2', ...args], { cwd: ROOT });

interface Overview {
  counts: { rollouts: number };
  terminations: Record<string, number>;
}

describe('gymnast view in a headless browser', { skip, timeout: 60_000 }, () => {
  let dir: string;
  let server: ViewerServer;
  /** The viewer of a run collected with `--policy openai`: evaluation-only rows, no turn checked for drift. */
  let evalServer: ViewerServer;
  let model: InferenceServer | undefined;
  let browser: Browser;
  let page: Page;
  let shots: string;
  const problems: string[] = [];
  const requests: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gymnast-view-'));
    const runs = join(dir, 'runs');
    // r: the quick start's run (every answer right); hot: sampled hot and cut short, so rewards and terminations vary.
    await Promise.all([
      collect('--output', join(runs, 'r.jsonl')),
      collect('--output', join(runs, 'hot.jsonl'), '--temperature', '3', '--seed', '7', '--max-tokens', '3'),
    ]);
    // The embedded model never drifts; give hot's first row the drift a server-rendered prompt would record.
    const [first, ...rest] = (await readFile(join(runs, 'hot.jsonl'), 'utf8')).split('\n');
    const row = JSON.parse(first!);
    row.turns[0].token_drift = { source: 'server', at: 4, ledger: '<a>', template: '<b>' };
    row.token_drift_count = 1;
    await writeFile(join(runs, 'hot.jsonl'), [JSON.stringify(row), ...rest].join('\n'));

    server = await ViewerServer.open({ runs: await findRuns(runs), followIntervalMs: 200 });
    await server.start();
    [model] = await startServers(1, { respond: ({ seed }) => `${seed % 100}` });
    await collect('--output', join(dir, 'eval', 'eval.jsonl'), '--limit', '3', '--policy', 'openai', '--base-url', model!.url, '--tokenizer', qwen3Directory);
    evalServer = await ViewerServer.open({ runs: await findRuns(join(dir, 'eval')) });
    await evalServer.start();
    shots = await screenshotsFolder(dir);
    browser = await launchChromium();
    page = await openPage(browser, problems);
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) requests.push(url.pathname + url.search);
    });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await evalServer?.close();
    await model?.close();
    await removeSpecFolder(dir);
  });

  const open = async (hash: string) => {
    await page.goto(`${server.url}/${hash}`);
    await page.waitForLoadState('networkidle');
  };
  const api = async <T>(path: string) => (await (await fetch(`${server.url}${path}`)).json()) as T;
  const noProblems = () => assert.deepEqual(problems.splice(0), []);
  // Browser-side code is given as strings: the project compiles without the DOM library.
  const rows = (n: number) => page.waitForFunction(`document.querySelectorAll('table.rollouts tbody tr a.row-link').length === ${n}`);
  const column = (name: string) => page.$$eval(`table.rollouts tbody td.${name}`, (cells) => cells.map((cell) => cell.textContent ?? ''));

  it('lists the runs and compares their pass@k side by side', async () => {
    await open('#/');
    await page.locator('.compare .cards').waitFor();
    assert.deepEqual(await page.$$eval('table.data tbody th a', (links) => links.map((a) => a.textContent)), ['hot', 'r']);
    assert.equal(await page.locator('.compare .series').count(), 2);
    assert.equal(await page.locator('.compare .cards .card').count(), 2);
    noProblems();
  });

  it('shows a run overview with its charts', async (t) => {
    await open('#/run/hot');
    await page.locator('.tiles').waitFor();
    const tiles = await page.$$eval('.tiles dt', (dts) => dts.map((dt) => dt.textContent));
    assert.deepEqual(tiles.slice(0, 5), ['rollouts', 'failures', 'tasks', 'mean reward', 'token drift']);
    assert.equal(await page.locator('.tiles dd').first().textContent(), '32');
    assert.equal(await page.locator('svg.chart').count(), 4, 'pass@k and three histograms');
    assert.equal(await page.locator('svg.chart .dot').count(), 2, 'pass@k at k = 1, 2');
    assert.ok((await page.locator('.category-bars li').count()) >= 2, 'two termination kinds');
    const file = join(shots, 'overview.png');
    await page.screenshot({ path: file, fullPage: true });
    assert.ok((await stat(file)).size > 20_000);
    t.diagnostic(`screenshot: ${file}`);
    noProblems();
  });

  it('filters the table by termination and reward, and sorts it', async () => {
    const overview = await api<Overview>('/api/runs/hot/overview');
    const [kind, count] = Object.entries(overview.terminations).sort((a, b) => a[1] - b[1])[0]!;
    await open('#/run/hot/rollouts');
    await rows(32);

    await page.selectOption('#f-termination', kind);
    await rows(count);
    assert.deepEqual(new Set(await column('termination')), new Set([kind]));
    assert.match(page.url(), new RegExp(`termination=${kind}`), 'the filter is kept in the address');

    await page.click('button:has-text("Clear")');
    await rows(32);
    await page.fill('#f-min-reward', '0.5');
    const { total } = await api<{ total: number }>('/api/runs/hot/rollouts?min_reward=0.5');
    assert.ok(total > 0 && total < 32);
    await rows(total);
    assert.deepEqual(new Set(await column('reward')), new Set(['1']));

    await page.click('button:has-text("Clear")');
    await rows(32);
    await page.click('button.sort[data-sort="reward"]');
    await page.waitForFunction(
      `document.querySelector('th[aria-sort="ascending"]') !== null && document.querySelector('table.rollouts tbody td.reward')?.textContent === '0'`,
    );
    await page.click('button.sort[data-sort="reward"]');
    await page.waitForFunction(
      `document.querySelector('th[aria-sort="descending"]') !== null && document.querySelector('table.rollouts tbody td.reward')?.textContent === '1'`,
    );
    const rewards = (await column('reward')).map(Number);
    assert.deepEqual(
      rewards,
      [...rewards].sort((a, b) => b - a),
    );
    assert.ok(requests.some((path) => path.includes('sort=-reward')));

    await page.check('#f-drift');
    await rows(1);
    noProblems();
  });

  it("shows each rollout's health verdict from the report collect wrote, filters by it, and lists a rollout's findings", async () => {
    const counts = await Promise.all(
      ['healthy', 'warning', 'unhealthy'].map(
        async (verdict) => [verdict, (await api<{ total: number }>(`/api/runs/hot/rollouts?health=${verdict}`)).total] as const,
      ),
    );
    assert.equal(
      counts.reduce((sum, [, n]) => sum + n, 0),
      32,
      'every rollout has a verdict',
    );
    const [verdict, count] = counts.filter(([, n]) => n > 0).sort((a, b) => a[1] - b[1])[0]!;
    await open('#/run/hot/rollouts');
    await rows(32);
    assert.deepEqual(
      new Set(await page.$$eval('table.rollouts tbody td.health-cell .health', (badges) => badges.map((badge) => badge.className))),
      new Set(counts.filter(([, n]) => n > 0).map(([v]) => `health ${v}`)),
    );
    await page.selectOption('#f-health', verdict);
    await rows(count);
    assert.deepEqual(new Set(await column('health-cell')), new Set([verdict]));
    assert.match(page.url(), new RegExp(`health=${verdict}`));

    // The tile shows the report's counts, where a task-level finding counts against its rollouts; the filter goes by each rollout's own verdict.
    const { health } = await api<{ health: Record<string, number> }>('/api/runs/hot/overview');
    await open('#/run/hot');
    assert.match((await page.locator('.tile', { hasText: 'health' }).textContent()) ?? '', new RegExp(`${health[verdict]} ${verdict}`));
    if (verdict !== 'healthy') {
      const { items } = await api<{ items: { id: string }[] }>(`/api/runs/hot/rollouts?health=${verdict}&limit=1`);
      await open(`#/run/hot/rollout/${items[0]!.id}`);
      assert.ok((await page.locator('.findings li').count()) >= 1, 'the findings are listed');
    }
    noProblems();
  });

  it('searches the text of the rollouts', async () => {
    await open('#/run/r/rollouts');
    await rows(32);
    await page.fill('#f-q', 'what is 50+37');
    await rows(2);
    noProblems();
  });

  it('is usable from the keyboard: arrows move between rows, Enter opens one', async () => {
    await open('#/run/r/rollouts?sort=task');
    const second = await page.locator('a.row-link').nth(1).textContent();
    await page.locator('a.row-link').first().focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), second);
    await page.keyboard.press('Enter');
    await page.locator('h1', { hasText: `Rollout ${second}` }).waitFor();
    await page.locator('.token-view').waitFor();
    noProblems();
  });

  it('shows a rollout: conversation, turns, and tokens coloured by logprob with the loss mask and drift', async (t) => {
    const { items } = await api<{ items: { id: string }[] }>('/api/runs/hot/rollouts?drift=1');
    await open(`#/run/hot/rollout/${items[0]!.id}`);
    await page.locator('.token-view').waitFor();
    assert.ok((await page.locator('.msg').count()) >= 2);
    assert.ok((await page.locator('.msg.role-assistant').count()) >= 1);

    const spans = (kind: string) =>
      page.$$eval(`.tokens .tok.${kind}`, (all) =>
        all.map((span) => ({ style: span.getAttribute('style') ?? '', title: span.getAttribute('title') ?? '', text: span.textContent ?? '' })),
      );
    const trained = await spans('trained');
    const context = await spans('context');
    assert.ok(trained.length > 0 && context.length > 0);
    assert.ok(
      trained.every((one) => /background-color/.test(one.style) && /logprob -?\d/.test(one.title) && / trained/.test(one.title)),
      'trained tokens are coloured by logprob',
    );
    assert.ok(
      context.every((one) => one.style === '' && /not trained/.test(one.title)),
      'prompt and observation tokens are not',
    );
    assert.equal(
      context
        .map((one) => one.text)
        .join('')
        .slice(0, 40)
        .includes('what is'),
      true,
      'tokens are decoded to text',
    );
    const drift = await spans('drift');
    assert.equal(drift.length, 1);
    assert.match(drift[0]!.title, /^#4 .*token drift in turn 0: the sequence has "<a>", the server "<b>"/);
    assert.match((await page.locator('td.warn').first().textContent()) ?? '', /server, at token 4/);

    const file = join(shots, 'tokens.png');
    await page.locator('section.block', { has: page.locator('.token-view') }).screenshot({ path: file });
    assert.ok((await stat(file)).size > 5_000);
    t.diagnostic(`screenshot: ${file}`);
    await page.screenshot({ path: join(shots, 'rollout.png'), fullPage: true });
    noProblems();
  });

  it("shows a text-only policy's rollouts with their own verdict, evaluation-only, and their turns not checked for drift", async () => {
    const { total, items } = (await (await fetch(`${evalServer.url}/api/runs/eval/rollouts`)).json()) as {
      total: number;
      items: { id: string; drift_unchecked: number; turns: number }[];
    };
    assert.ok(total >= 3);
    // A hosted model renders its own prompts and never returns them: no turn of the run could be checked.
    assert.ok(items.every((item) => item.turns > 0 && item.drift_unchecked === item.turns));
    await page.goto(`${evalServer.url}/#/run/eval/rollouts`);
    await page.waitForLoadState('networkidle');
    await rows(total);
    assert.deepEqual(
      new Set(await page.$$eval('table.rollouts tbody td.health-cell .health', (badges) => badges.map((badge) => badge.className))),
      new Set(['health evaluation-only']),
    );
    assert.deepEqual(
      await column('unchecked'),
      items.map((item) => String(item.drift_unchecked)),
    );
    await page.selectOption('#f-health', 'evaluation-only');
    await rows(total);

    await page.goto(`${evalServer.url}/#/run/eval`);
    await page.locator('.tiles').waitFor();
    assert.match(
      (await page.locator('.tile', { hasText: 'health' }).textContent()) ?? '',
      new RegExp(`0 healthy · 0 warning · 0 unhealthy · ${total} evaluation-only`),
    );
    assert.match((await page.locator('.tile', { hasText: 'drift unchecked' }).textContent()) ?? '', new RegExp(`${total} rollouts`));

    await page.goto(`${evalServer.url}/#/run/eval/rollout/${items[0]!.id}`);
    await page.locator('.token-view').waitFor();
    assert.equal(await page.locator('.tile .health').textContent(), 'evaluation-only');
    assert.match((await page.locator('.tile', { hasText: 'drift unchecked' }).textContent()) ?? '', new RegExp(`${items[0]!.drift_unchecked} turn`));
    assert.match((await page.locator('td.warn').first().textContent()) ?? '', /unchecked: the server did not return the prompt it rendered/);
    noProblems();
  });

  it('shows the rollouts of one task side by side', async () => {
    await open('#/run/hot/group/0');
    await page.locator('.group-grid .column').first().waitFor();
    assert.equal(await page.locator('.group-grid .column').count(), 2);
    noProblems();
  });

  it('follows a run as it grows, and stops polling while the tab is hidden', async () => {
    await open('#/run/r');
    await page.locator('.tiles').waitFor();
    assert.equal(await page.locator('.tiles dd').first().textContent(), '32');
    // One more rollout lands in the file, as collect appends them.
    const first = JSON.parse((await readFile(join(dir, 'runs', 'r.jsonl'), 'utf8')).split('\n')[0]!);
    await appendFile(join(dir, 'runs', 'r.jsonl'), `${JSON.stringify({ ...first, _ng_rollout_index: 2 })}\n`);
    await page.waitForFunction(`document.querySelector('.tiles dd')?.textContent === '33'`, undefined, { timeout: 6000 });

    await page.evaluate(`Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'))`);
    const polls = requests.length;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.equal(requests.length, polls, 'no requests while hidden');
    noProblems();
  });

  it('says so when a run does not exist', async () => {
    await open('#/run/nope');
    assert.match((await page.locator('[role="alert"]').textContent()) ?? '', /no run nope/);
    const failed = problems.splice(0);
    assert.ok(
      failed.every((problem) => /404/.test(problem)),
      failed.join('\n'),
    );
  });
});
