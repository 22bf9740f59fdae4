import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findRuns } from '../../src/servers/viewer/run-files.js';
import { ViewerServer } from '../../src/servers/viewer/viewer-server.js';
import { rawGet } from '../support/raw-get.js';
import { syntheticRow, toLines } from '../support/synthetic-rows.js';

// gymnast view on runs laid out as the README's quick start lays them out: runs/NAME/rollouts.jsonl.

const rows = toLines([0, 1].map((rollout) => syntheticRow({ task: 0, rollout, reward: rollout })));

describe('gymnast view names and finds runs as users lay them out', () => {
  let runs: string;
  before(() => {
    runs = join(mkdtempSync(join(tmpdir(), 'gymnast-run-names-')), 'runs');
    for (const folder of ['quickstart', 'small-products', 'sweep', '.hidden']) mkdirSync(join(runs, folder), { recursive: true });
    writeFileSync(join(runs, 'quickstart', 'rollouts.jsonl'), rows);
    writeFileSync(join(runs, 'small-products', 'rollouts.jsonl'), rows);
    writeFileSync(join(runs, 'small-products', 'rollouts_failures.jsonl'), '');
    writeFileSync(join(runs, 'sweep', 'train.jsonl'), rows);
    writeFileSync(join(runs, '.hidden', 'rollouts.jsonl'), rows);
    writeFileSync(join(runs, 'loose.jsonl'), rows);
  });
  after(() => rmSync(join(runs, '..'), { recursive: true, force: true }));

  it('finds the runs in the subfolders of the folder given, each named by its folder when its file is rollouts.jsonl', async () => {
    assert.deepEqual(
      (await findRuns(runs)).map((run) => [run.id, run.output]),
      [
        ['loose', join(runs, 'loose.jsonl')],
        ['quickstart', join(runs, 'quickstart', 'rollouts.jsonl')],
        ['small-products', join(runs, 'small-products', 'rollouts.jsonl')],
        ['sweep/train', join(runs, 'sweep', 'train.jsonl')],
      ],
    );
  });

  it('names a rollouts.jsonl given on its own, or in the folder given, by its folder', async () => {
    assert.deepEqual(
      (await findRuns(join(runs, 'quickstart', 'rollouts.jsonl'))).map((run) => run.id),
      ['quickstart'],
    );
    assert.deepEqual(
      (await findRuns(join(runs, 'small-products'))).map((run) => run.id),
      ['small-products'],
    );
  });

  it('keeps two runs apart that would share a name', async () => {
    writeFileSync(join(runs, 'quickstart.jsonl'), rows);
    try {
      assert.deepEqual(
        (await findRuns(runs)).map((run) => run.id).filter((id) => id.startsWith('quickstart')),
        ['quickstart', 'quickstart/rollouts'],
      );
    } finally {
      rmSync(join(runs, 'quickstart.jsonl'));
    }
  });

  it('serves each run under its name', async () => {
    const server = await ViewerServer.open({ runs: await findRuns(runs) });
    try {
      const base = await server.start();
      await server.indexed();
      const listed = JSON.parse((await rawGet(base, '/api/runs')).body) as { runs: { id: string; rollouts: number }[] };
      assert.deepEqual(
        listed.runs.map((run) => [run.id, run.rollouts]),
        [
          ['loose', 2],
          ['quickstart', 2],
          ['small-products', 2],
          ['sweep/train', 2],
        ],
      );
      const overview = await rawGet(base, `/api/runs/${encodeURIComponent('sweep/train')}/overview`);
      assert.equal(overview.status, 200, overview.body);
    } finally {
      await server.close();
    }
  });
});
