import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeRunFiles } from './aggregate-rows.js';
import type { BenchResult } from './bench-result.js';

const run = promisify(execFile);
const ROLLOUTS_PER_TASK = 4;

interface Measurement {
  seconds: number;
  peak_rss_mb: number;
}

/** Writes a run of `rows` rollouts, then aggregates it in a fresh process (so each peak is its own). */
async function measure(rows: number): Promise<Measurement> {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-bench-aggregate-'));
  try {
    await writeRunFiles(dir, rows / ROLLOUTS_PER_TASK, ROLLOUTS_PER_TASK);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', new URL('./aggregate-process.ts', import.meta.url).pathname, dir], {
      maxBuffer: 1 << 20,
    });
    return JSON.parse(stdout) as Measurement;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Aggregation over 1,000,000 rollouts (250,000 tasks × 4) against 10,000: time and peak memory. */
export async function aggregateScaling(): Promise<BenchResult[]> {
  const small = await measure(10_000);
  const large = await measure(1_000_000);
  return [
    {
      name: `aggregate: seconds to aggregate and write, 1,000,000 rollouts vs 10,000 (${(large.seconds / small.seconds / 100).toFixed(2)}× per rollout)`,
      baseline: { label: '10,000 rollouts', value: small.seconds, unit: 's' },
      measured: { label: '1,000,000 rollouts', value: large.seconds, unit: 's' },
      lowerIsBetter: true,
    },
    {
      name: 'aggregate: peak RSS aggregating and writing, 1,000,000 rollouts vs 10,000',
      baseline: { label: '10,000 rollouts', value: small.peak_rss_mb, unit: 'MB' },
      measured: { label: '1,000,000 rollouts', value: large.peak_rss_mb, unit: 'MB' },
      lowerIsBetter: true,
    },
  ];
}
