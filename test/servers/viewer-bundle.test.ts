// A bundle (`gymnast view RUN --bundle DIR`) answers as the server does: its data files, read by the
// page's own bundle-data.js (its script loading stood in for by a fake document), give the same
// answers as the viewer's API for the runs list, the overview, every rollout and group, and the
// rollouts list under filters, sorts, pages and text searches, which the page computes itself. A
// bundle is written only into a missing or empty folder, or over one with --overwrite.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OutputPathError } from '../../src/core/errors/output-path-error.js';
import { BadQueryError } from '../../src/viewer/rollout-query.js';
import { classicScript } from '../../src/servers/viewer/classic-script.js';
import { findRuns } from '../../src/servers/viewer/run-files.js';
import { servedRuns } from '../../src/servers/viewer/served-runs.js';
import { answerApi, type ServedRun } from '../../src/servers/viewer/viewer-api.js';
import { writeViewerBundle } from '../../src/servers/viewer/viewer-bundle.js';
import { syntheticRow, toLines, type SyntheticRollout } from '../support/synthetic-rows.js';

const ASSETS = new URL('../../assets/viewer/', import.meta.url);

/** Forty rollouts of eight tasks: rewards, agents, turns, durations, drift and failures that differ. */
function rollouts(): { successes: SyntheticRollout[]; failures: SyntheticRollout[] } {
  const successes: SyntheticRollout[] = [];
  const failures: SyntheticRollout[] = [];
  for (let task = 0; task < 8; task++) {
    for (let rollout = 0; rollout < 5; rollout++) {
      const n = task * 5 + rollout;
      if (n % 9 === 4) failures.push({ task, rollout, failure: n % 2 === 0 ? 'transport' : 'timeout' });
      else
        successes.push({
          task,
          rollout,
          reward: [0, 0.5, 1][n % 3]!,
          agent: n % 4 === 0 ? 'other' : 'arithmetic',
          turns: 1 + (n % 3),
          durationMs: (n * 37) % 100,
          ...(n % 7 === 0 ? { drift: [0] } : {}),
          ...(n % 5 === 0 ? { answer: `It is "forty ${n}"` } : {}),
        });
    }
  }
  return { successes, failures };
}

const QUERIES = [
  '',
  'limit=7&offset=14',
  'sort=reward',
  'sort=-reward',
  'sort=-turns&limit=100',
  'sort=duration',
  'sort=-task&offset=3',
  'termination=env-done',
  'termination=nope',
  'agent=other',
  'task=3',
  'failure=any',
  'failure=none&sort=-tokens',
  'failure=timeout',
  'drift=1',
  'drift=0&min_reward=0.5',
  'max_reward=0.5&sort=reward',
  'health=healthy',
  'q=forty',
  'q=FORTY 1',
  'q="forty',
  'q=what is 3%2B3&sort=-reward',
  'q=nowhere',
];

describe('writeViewerBundle', () => {
  let dir: string;
  let runs: Map<string, ServedRun>;
  let bundled: (path: string) => Promise<{ status: number; body: unknown }>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gymnast-bundle-'));
    const { successes, failures } = rollouts();
    mkdirSync(join(dir, 'runs'));
    writeFileSync(join(dir, 'runs', 'out.jsonl'), toLines(successes.map(syntheticRow)));
    writeFileSync(join(dir, 'runs', 'out_failures.jsonl'), toLines(failures.map(syntheticRow)));
    writeFileSync(join(dir, 'runs', 'two.jsonl'), toLines(successes.slice(0, 6).map(syntheticRow)));
    const found = await findRuns(join(dir, 'runs'));
    // Token texts by a stand-in tokenizer: the bundle keeps them, and the page rebuilds the rest of each token from the row.
    const tokenizer = { decode: (ids: readonly number[]) => `<${ids.join(',')}>` };
    await writeViewerBundle({ runs: found, directory: join(dir, 'bundle'), tokenizer });
    runs = servedRuns(found, { tokenizer });
    for (const { index } of runs.values()) await index.refresh();

    // The page's own module, its script tags run by reading the bundle's files.
    const store = { data: new Map<string, unknown>(), put: (name: string, value: unknown) => store.data.set(name, value) };
    Object.assign(globalThis, {
      gymnastBundle: store,
      document: {
        createElement: () => ({}) as { src: string; onload: () => void; onerror: () => void },
        head: {
          append(script: { src: string; onload: () => void; onerror: () => void }) {
            let text: string;
            try {
              text = readFileSync(join(dir, 'bundle', script.src), 'utf8');
            } catch {
              setImmediate(script.onerror);
              return;
            }
            new Function('gymnastBundle', text)(store);
            setImmediate(script.onload);
          },
        },
      },
    });
    ({ bundledAnswer: bundled } = (await import(new URL('bundle-data.js', ASSETS).href)) as { bundledAnswer: typeof bundled });
  });
  after(() => {
    for (const { index } of runs.values()) index.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const served = async (path: string) => {
    const [pathname, search = ''] = path.split('?');
    try {
      const reply = await answerApi(runs, pathname!.replace('/api/', '').split('/').map(decodeURIComponent), new URLSearchParams(search));
      return { status: reply.status, body: JSON.parse(JSON.stringify(reply.body)) as unknown };
    } catch (error) {
      // The server answers a bad query parameter with 400 naming it.
      if (error instanceof BadQueryError) return { status: 400, body: { error: { message: error.message, parameter: error.parameter } } };
      throw error;
    }
  };
  const same = async (path: string) => assert.deepEqual(await bundled(path), await served(path), path);

  it('answers the runs list, the overviews, every rollout and every group as the server does', async () => {
    await same('/api/runs');
    for (const id of ['out', 'two']) {
      await same(`/api/runs/${id}/overview`);
      const { body } = await served(`/api/runs/${id}/rollouts?limit=1000`);
      for (const item of (body as { items: { id: string; task: number }[] }).items) {
        await same(`/api/runs/${id}/rollouts/${item.id}`);
        await same(`/api/runs/${id}/groups/${item.task}`);
      }
    }
  });

  it('filters, sorts, pages and searches the rollouts list in the page as the server does', async () => {
    for (const query of QUERIES) await same(`/api/runs/out/rollouts?${query}`);
    const { body } = await bundled('/api/runs/out/rollouts?q=forty');
    assert.ok((body as { total: number }).total >= 2, 'the search finds the answers that say it');
  });

  it("sorts and pages a run's task table and two runs' comparison in the page as the server does", async () => {
    const pages = ['', 'sort=task', 'sort=-mean_reward&limit=3', 'sort=pass_at_k&offset=2', 'sort=-failures', 'sort=mean_tokens&limit=1&offset=7'];
    for (const query of pages) for (const id of ['out', 'two']) await same(`/api/runs/${id}/tasks?${query}`);
    for (const query of ['', 'sort=-delta', 'sort=mean_reward_b&limit=2&offset=1', 'sort=-task'])
      for (const [a, b] of [
        ['out', 'two'],
        ['two', 'out'],
      ])
        await same(`/api/compare/${a}/${b}?${query}`);
    for (const path of [
      '/api/runs/out/tasks?sort=color',
      '/api/runs/out/tasks?limit=0',
      '/api/compare/out/two?offset=-1',
      '/api/compare/out/nope',
      '/api/compare/out',
    ]) {
      const [fromBundle, fromServer] = [await bundled(path), await served(path)];
      assert.equal(fromBundle.status, fromServer.status, path);
      assert.notEqual(fromBundle.status, 200, path);
    }
  });

  it('answers 404 and 400 where the server does', async () => {
    for (const path of ['/api/runs/nope/overview', '/api/runs/out/rollouts/o999', '/api/runs/out/groups/99']) {
      assert.equal((await bundled(path)).status, 404, path);
      assert.equal((await served(path)).status, 404, path);
    }
    for (const query of ['sort=color', 'task=-1', 'min_reward=x']) {
      const [fromBundle, fromServer] = [await bundled(`/api/runs/out/rollouts?${query}`), await served(`/api/runs/out/rollouts?${query}`)];
      assert.deepEqual([fromBundle.status, fromServer.status], [400, 400], query);
      assert.equal(
        (fromBundle.body as { error: { parameter: string } }).error.parameter,
        (fromServer.body as { error: { parameter: string } }).error.parameter,
      );
    }
  });

  it('writes only into a missing or empty folder, or over one with --overwrite, and names a bad path', async () => {
    const found = await findRuns(join(dir, 'runs', 'two.jsonl'));
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    assert.equal((await writeViewerBundle({ runs: found, directory: empty })).rollouts, 6);
    await assert.rejects(writeViewerBundle({ runs: found, directory: empty }), (error: unknown) => {
      assert.ok(error instanceof OutputPathError);
      assert.match(error.message, /is not empty \(pass --overwrite/);
      return true;
    });
    const written = await writeViewerBundle({ runs: found, directory: empty, overwrite: true });
    assert.deepEqual([written.runs, written.rollouts], [1, 6]);
    // No tokenizer for this run: a rollout's file holds no token text at all.
    assert.match(readFileSync(join(empty, 'data', '0', 'rollouts', 'o0.js'), 'utf8'), /"tokens":\{"\$texts":null\}/);
    await assert.rejects(writeViewerBundle({ runs: found, directory: join(dir, 'runs', 'two.jsonl', 'x') }), /two\.jsonl is a file, not a folder/);
    await assert.rejects(writeViewerBundle({ runs: found, directory: join(dir, 'runs', 'two.jsonl') }), /it is a file, not a folder/);
  });

  it('links the viewer into one classic script the page loads after its store', () => {
    const html = readFileSync(join(dir, 'bundle', 'index.html'), 'utf8');
    assert.doesNotMatch(html, /type="module"/);
    assert.match(html, /window\.gymnastBundle = [^<]*<\/script>\s*<script defer src="viewer\.js"><\/script>/);
    const script = readFileSync(join(dir, 'bundle', 'viewer.js'), 'utf8');
    assert.doesNotMatch(script, /^\s*(import|export)\b/m);
  });
});

describe('classicScript', () => {
  it('refuses module syntax it does not link, naming the file and line, and an import cycle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-classic-'));
    try {
      writeFileSync(join(dir, 'app.js'), "import { a } from './a.js';\nconsole.log(a);\n");
      writeFileSync(join(dir, 'a.js'), 'export const a = 1;\n\nexport default a;\n');
      await assert.rejects(classicScript(dir, 'app.js'), /a\.js:3 has import or export syntax the bundle does not link \(export default a;\)/);
      writeFileSync(join(dir, 'a.js'), "import { b } from './app.js';\nexport const a = b;\n");
      await assert.rejects(classicScript(dir, 'app.js'), /an import cycle app\.js → a\.js → app\.js/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
