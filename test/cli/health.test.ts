import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { HealthSummary } from '../../src/collect/health/health-summary.js';
import { assistant, bin, collectArithmetic, corruptedCopy, editRow } from '../support/health-run.js';

const run = promisify(execFile);

/** Runs the real CLI; a failing exit is returned, not thrown. */
async function gymnast(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('gymnast health', () => {
  let clean: string;
  let duplicated: string;
  before(async () => {
    clean = await collectArithmetic();
    duplicated = corruptedCopy(clean, (rows) => [...rows, rows[0]!]);
  });

  it('passes a clean run: exit 0, a table and the summary line, both report files written', async () => {
    const { code, stdout } = await gymnast('health', clean);
    assert.equal(code, 0);
    assert.match(stdout, /no findings/);
    assert.match(stdout, /health: 32 rollouts: 32 healthy, 0 warning, 0 unhealthy, 0 failed; report in .*out_health\.json/);
    assert.deepEqual(
      readdirSync(join(clean, '..'))
        .filter((name) => name.includes('_health'))
        .sort(),
      ['out_health.json', 'out_health.jsonl'],
    );
  });

  it('fails a run with an unhealthy rollout: exit 1 with an unhealthy: message naming the check, and the table shows where', async () => {
    const { code, stdout, stderr } = await gymnast('health', duplicated);
    assert.equal(code, 1);
    assert.match(stdout, /duplicate-rollout\s+error\s+1\s+.*out\.jsonl:33: rollout 0:0 has two successful rows: .*out\.jsonl:1 and .*out\.jsonl:33/);
    assert.match(
      stderr,
      /^gymnast: unhealthy: 1 of 32 rollouts are unhealthy, more than --max-unhealthy 0 allows \(duplicate-rollout 1\); see .*out_health\.json\n$/,
    );
  });

  it('lets --max-unhealthy allow a count or a fraction of the rollouts', async () => {
    assert.equal((await gymnast('health', duplicated, '--max-unhealthy', '1')).code, 0);
    assert.equal((await gymnast('health', duplicated, '--max-unhealthy', '0.05')).code, 0);
    const { code, stderr } = await gymnast('health', duplicated, '--max-unhealthy', '0.01');
    assert.equal(code, 1);
    assert.match(stderr, /more than --max-unhealthy 0\.01 \(0 of 32\) allows/);
  });

  it('refuses a --max-unhealthy that is neither a count nor a fraction', async () => {
    const { code, stderr } = await gymnast('health', clean, '--max-unhealthy', '1.5');
    assert.equal(code, 1);
    assert.match(stderr, /--max-unhealthy.*expected a whole number ≥ 0 or a fraction between 0 and 1, got 1\.5/);
  });

  it('passes warnings under the default threshold', async () => {
    const cut = corruptedCopy(
      clean,
      editRow(2, (row) => (row.turns[0]!.finish_reason = { unified: 'length', raw: 'length' })),
    );
    const { code, stdout } = await gymnast('health', cut);
    assert.equal(code, 0);
    assert.match(stdout, /runaway-generation\s+warning\s+1/);
    assert.match(stdout, /31 healthy, 1 warning, 0 unhealthy/);
  });

  it('prints the summary as JSON with --json', async () => {
    const flipped = corruptedCopy(
      clean,
      editRow(3, (row) => (assistant(row).generation_logprobs![0] = 1)),
    );
    const { code, stdout } = await gymnast('health', flipped, '--json');
    assert.equal(code, 1);
    const summary = JSON.parse(stdout) as HealthSummary;
    assert.deepEqual(summary.rollouts, { total: 32, healthy: 31, warning: 0, unhealthy: 1, evaluation_only: 0, failed: 0 });
    assert.equal(summary.checks['logprobs-positive']?.findings, 1);
  });

  it('checks every run in a folder on its own, and fails if any is unhealthy', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gymnast-health-folder-'));
    await collectArithmetic(folder, 'a');
    await collectArithmetic(folder, 'b');
    const healthy = await gymnast('health', folder, '--json');
    assert.equal(healthy.code, 0);
    const summaries = JSON.parse(healthy.stdout) as HealthSummary[];
    assert.deepEqual(
      summaries.map((summary) => [summary.files.rollouts, summary.rollouts.healthy]),
      [
        [join(folder, 'a.jsonl'), 32],
        [join(folder, 'b.jsonl'), 32],
      ],
    );
    copyFileSync(duplicated, join(folder, 'b.jsonl'));
    const { code, stdout } = await gymnast('health', folder);
    assert.equal(code, 1);
    assert.match(stdout, /a\.jsonl\n {2}no findings/);
    assert.match(stdout, /b\.jsonl\n {2}check +severity/);
  });

  it('names a RUN that does not exist', async () => {
    const { code, stderr } = await gymnast('health', join(tmpdir(), 'no-such-run.jsonl'));
    assert.equal(code, 1);
    assert.match(stderr, /^gymnast: config: cannot read .*no-such-run\.jsonl: no such file or folder\n$/);
  });
});
