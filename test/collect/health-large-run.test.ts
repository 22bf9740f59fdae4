import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { checkRunHealth } from '../../src/collect/health/check-run-health.js';
import { healthDecoder } from '../../src/collect/health/health-decoder.js';
import { bin, collectArithmetic, lines, type EditableRow } from '../support/health-run.js';

const run = promisify(execFile);

/** Health at scale, apart from the checks' own specs (health.test.ts), which every mutant of the checks reruns. */
describe('rollout health over a large run', () => {
  // How fast is the bench's business (npm run bench -- health); this spec holds what a user relies on:
  // every row read, and a heap that does not grow with the file.
  it('streams a large run: 20,000 rows, memory not growing with the file', async () => {
    const clean = await collectArithmetic();
    const directory = mkdtempSync(join(tmpdir(), 'gymnast-health-large-'));
    const output = join(directory, 'out.jsonl');
    const rows = lines(clean).map((text) => JSON.parse(text) as EditableRow);
    const plan = lines(clean.replace(/\.jsonl$/, '_materialized_inputs.jsonl')).map((text) => JSON.parse(text) as EditableRow);
    const many = (source: EditableRow[]) =>
      `${Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ ...source[i % source.length], _ng_task_index: Math.floor(i / 2), _ng_rollout_index: i % 2 })).join('\n')}\n`;
    writeFileSync(output, many(rows));
    writeFileSync(join(directory, 'out_materialized_inputs.jsonl'), many(plan));
    copyFileSync(clean.replace(/\.jsonl$/, '_run.json'), join(directory, 'out_run.json'));
    const summary = await checkRunHealth(output, await healthDecoder(output));
    assert.deepEqual(summary.rollouts, { total: 20_000, healthy: 20_000, warning: 0, unhealthy: 0, evaluation_only: 0, failed: 0 });
    // The rows take 46 MiB as text and several times that parsed: with a 32 MiB heap, holding them would run out (it takes about 2 s and less than 24 MiB alone; the margins are for a loaded machine).
    const { stdout } = await run(process.execPath, ['--max-old-space-size=32', bin, 'health', output]);
    assert.match(stdout, /20000 rollouts: 20000 healthy/);
    assert.ok(statSync(output).size > 40 * 2 ** 20);
  });
});
