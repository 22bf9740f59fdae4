import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findRuns } from '../../src/servers/viewer/run-files.js';
import { ViewerServer } from '../../src/servers/viewer/viewer-server.js';
import { syntheticRow, toLines } from '../support/synthetic-rows.js';
import { rawGet as get } from '../support/raw-get.js';

// gymnast view on a machine others share: it reads only regular files inside the run's folder.

const SECRET = 'top secret words';

/** Four rollouts of two tasks, the assistant saying `answer`. */
const rows = (answer: string, count = 4) =>
  toLines(Array.from({ length: count }, (_, i) => syntheticRow({ task: Math.floor(i / 2), rollout: i % 2, reward: i % 2, answer })));

describe('gymnast view reads only regular files inside the run folder', () => {
  let directory: string;
  let outside: string;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'gymnast-view-links-'));
    outside = join(directory, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.jsonl'), rows(SECRET, 40));
    writeFileSync(join(outside, 'secret_failures.jsonl'), toLines([syntheticRow({ task: 0, rollout: 0, failure: 'transport', answer: SECRET })]));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('lists no run that is a link (out of the folder or not), and says so once', async () => {
    const folder = join(directory, 'listed');
    mkdirSync(folder);
    writeFileSync(join(folder, 'out.jsonl'), rows('ours'));
    symlinkSync(join(outside, 'secret.jsonl'), join(folder, 'leak.jsonl'));
    symlinkSync(join(folder, 'out.jsonl'), join(folder, 'again.jsonl'));
    const notices: string[] = [];
    const runs = await findRuns(folder, { onNotice: (message) => notices.push(message) });
    assert.deepEqual(
      runs.map((run) => run.id),
      ['out'],
    );
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /skipped 2 runs? in .*listed.*again\.jsonl: it is a symbolic link.*leak\.jsonl: it is a symbolic link/);
  });

  it('skips a run whose sidecar is a link, and refuses it when named on its own, naming the sidecar', async () => {
    const folder = join(directory, 'sidecar');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.jsonl'), rows('ours'));
    writeFileSync(join(folder, 'b.jsonl'), rows('ours'));
    symlinkSync(join(outside, 'secret_failures.jsonl'), join(folder, 'b_failures.jsonl'));
    symlinkSync(join(outside, 'secret.jsonl'), join(folder, 'a_health.jsonl'));
    const notices: string[] = [];
    await assert.rejects(
      findRuns(folder, { onNotice: (message) => notices.push(message) }),
      /holds no run: .*a_health\.jsonl: it is a symbolic link.*b_failures\.jsonl: it is a symbolic link/,
    );
    await assert.rejects(findRuns(join(folder, 'b.jsonl')), (error: Error) => {
      assert.equal(error.name, 'ConfigError');
      assert.match(
        error.message,
        /cannot view .*b\.jsonl: .*b_failures\.jsonl: it is a symbolic link; gymnast view reads only regular files inside the run's folder/,
      );
      return true;
    });
  });

  it('views a run given by a link (the user chose it), its sidecars read beside the file it names', async () => {
    const folder = join(directory, 'target');
    mkdirSync(folder);
    writeFileSync(join(folder, 'out.jsonl'), rows('ours'));
    writeFileSync(join(folder, 'out_failures.jsonl'), toLines([syntheticRow({ task: 9, rollout: 0, failure: 'transport' })]));
    symlinkSync(join(folder, 'out.jsonl'), join(directory, 'latest.jsonl'));
    const [run] = await findRuns(join(directory, 'latest.jsonl'));
    assert.deepEqual([run!.id, run!.output, run!.failures], ['out', realpathSync(join(folder, 'out.jsonl')), realpathSync(join(folder, 'out_failures.jsonl'))]);
  });

  it('never serves the rows of a file swapped for a link after it started: 403 naming the file', async () => {
    const folder = join(directory, 'swapped');
    mkdirSync(folder);
    writeFileSync(join(folder, 'out.jsonl'), rows('ours'));
    const server = await ViewerServer.open({ runs: await findRuns(folder), followIntervalMs: 60_000 });
    try {
      await server.start();
      await server.indexed();
      assert.equal((await get(server.url, '/api/runs/out/rollouts/o1')).status, 200);
      // A new failures sidecar that is a link, then the output itself replaced by one.
      symlinkSync(join(outside, 'secret_failures.jsonl'), join(folder, 'out_failures.jsonl'));
      const sidecar = await get(server.url, '/api/runs/out/rollouts?limit=100');
      assert.equal(sidecar.status, 403, sidecar.body);
      assert.match(sidecar.body, /out_failures\.jsonl: it is a symbolic link/);
      rmSync(join(folder, 'out_failures.jsonl'));
      symlinkSync(join(outside, 'secret.jsonl'), join(folder, 'link.tmp'));
      renameSync(join(folder, 'link.tmp'), join(folder, 'out.jsonl'));
      for (const path of [
        '/api/runs/out/rollouts?limit=100',
        '/api/runs/out/rollouts/o1',
        '/api/runs/out/groups/0',
        '/api/runs/out/overview',
        `/api/runs/out/rollouts?q=${encodeURIComponent(SECRET)}`,
      ]) {
        const answer = await get(server.url, path);
        assert.equal(answer.status, 403, `${path}: ${answer.body}`);
        assert.match(answer.body, /out\.jsonl: it is a symbolic link/, path);
        assert.ok(!answer.body.includes(SECRET), path);
      }
    } finally {
      await server.close();
    }
  });
});
