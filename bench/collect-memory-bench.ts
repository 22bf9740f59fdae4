import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { BenchResult } from './bench-result.js';

const run = promisify(execFile);

/** Peak RSS of one collect in its own process (see collect-memory-process.ts for the modes). */
async function measure(rows: number, mode: 'episodes' | 'all'): Promise<{ peak_rss_mb: number; run_peak_rss_mb: number }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', new URL('./collect-memory-process.ts', import.meta.url).pathname, String(rows), mode], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as { peak_rss_mb: number; run_peak_rss_mb: number };
}

/** Whether collection memory follows the dataset: 1,000,000 input rows against 10,000. */
export async function collectMemory(): Promise<BenchResult[]> {
  const plannedSmall = (await measure(10_000, 'episodes')).peak_rss_mb;
  const plannedLarge = (await measure(1_000_000, 'episodes')).peak_rss_mb;
  const runSmall = await measure(2_500, 'all');
  const runLarge = await measure(250_000, 'all');
  return [
    {
      name: 'collect: peak RSS planning the input and running 2,000 rollouts, 1,000,000 rows vs 10,000',
      baseline: { label: '10,000 rows', value: plannedSmall, unit: 'MB' },
      measured: { label: '1,000,000 rows', value: plannedLarge, unit: 'MB' },
      lowerIsBetter: true,
    },
    {
      name: 'collect: peak RSS running every rollout (instant agent), before aggregating, 1,000,000 rollouts vs 10,000',
      baseline: { label: '10,000 rollouts', value: runSmall.run_peak_rss_mb, unit: 'MB' },
      measured: { label: '1,000,000 rollouts', value: runLarge.run_peak_rss_mb, unit: 'MB' },
      lowerIsBetter: true,
    },
    {
      name: 'collect: peak RSS running every rollout and aggregating them (per-rollout numbers for medians), 1,000,000 rollouts vs 10,000',
      baseline: { label: '10,000 rollouts', value: runSmall.peak_rss_mb, unit: 'MB' },
      measured: { label: '1,000,000 rollouts', value: runLarge.peak_rss_mb, unit: 'MB' },
      lowerIsBetter: true,
    },
  ];
}
