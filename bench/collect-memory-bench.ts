import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { BenchResult } from './bench-result.js';

const run = promisify(execFile);

/** Peak RSS of planning N rows and running the first 2,000 rollouts, each size in its own process. */
async function peakRss(rows: number): Promise<number> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', new URL('./collect-memory-process.ts', import.meta.url).pathname, String(rows)], { maxBuffer: 1 << 20 });
  return (JSON.parse(stdout) as { peak_rss_mb: number }).peak_rss_mb;
}

/** Whether collection memory follows the dataset: 1,000,000 input rows against 10,000. */
export async function collectMemory(): Promise<BenchResult> {
  const small = await peakRss(10_000);
  const large = await peakRss(1_000_000);
  return {
    name: 'collect: peak RSS planning the input and running 2,000 rollouts, 1,000,000 rows vs 10,000',
    baseline: { label: '10,000 rows', value: small, unit: 'MB' },
    measured: { label: '1,000,000 rows', value: large, unit: 'MB' },
    lowerIsBetter: true,
  };
}
