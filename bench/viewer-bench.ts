import { execFile } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ChunkedWriter } from '../src/collect/result-files.js';
import { syntheticRow } from '../test/support/synthetic-rows.js';
import type { BenchResult } from './bench-result.js';

const run = promisify(execFile);

/** A run of `rollouts` realistic rows (1 to 3 turns, 40 tokens a message with logprobs; 1 in 50 a failure), about 2 KB a row. */
async function writeRun(directory: string, rollouts: number): Promise<string> {
  const output = join(directory, `${rollouts}`, 'out.jsonl');
  mkdirSync(join(directory, `${rollouts}`));
  const results = createWriteStream(output);
  const failures = createWriteStream(join(directory, `${rollouts}`, 'out_failures.jsonl'));
  const [resultWriter, failureWriter] = [new ChunkedWriter(results), new ChunkedWriter(failures)];
  for (let i = 0; i < rollouts; i++) {
    const spec = {
      task: Math.floor(i / 8),
      rollout: i % 8,
      reward: (i * 7) % 3 === 0 ? 1 : 0,
      turns: 1 + (i % 3),
      tokensPerMessage: 40,
      durationMs: 100 + (i % 997),
      ...(i % 13 === 0 ? { drift: [0] } : {}),
    };
    const failed = i % 50 === 49;
    await (failed ? failureWriter : resultWriter).write(`${JSON.stringify(syntheticRow(failed ? { ...spec, failure: 'transport' } : spec))}\n`);
  }
  await Promise.all([resultWriter.flush(), failureWriter.flush()]);
  await Promise.all([results, failures].map((stream) => new Promise((resolve) => stream.end(resolve))));
  return output;
}

interface ViewerMeasure {
  first_render_ms: number;
  /** The share of the run's bytes indexed when the first overview was served. */
  first_render_share: number;
  indexed_ms: number;
  peak_rss_mb: number;
  rollouts: number;
}

async function measure(output: string): Promise<ViewerMeasure> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', new URL('./viewer-process.ts', import.meta.url).pathname, output], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as ViewerMeasure;
}

const percent = (share: number) => `${(share * 100).toFixed(1)}% indexed`;

/**
 * `gymnast view` on runs of 200,000 rollouts against 10,000: time to a first render (the first served
 * overview and page of rollouts: the server listens while it indexes), time until the whole run is
 * indexed, and peak RSS.
 */
export async function viewerScaling(): Promise<BenchResult[]> {
  const directory = mkdtempSync(join(tmpdir(), 'gymnast-viewer-bench-'));
  try {
    const smallFile = await writeRun(directory, 10_000);
    const largeFile = await writeRun(directory, 200_000);
    const megabytes = (file: string) => (statSync(file).size / 1e6).toFixed(0);
    const small = await measure(smallFile);
    const large = await measure(largeFile);
    return [
      {
        name: `viewer: time to first render (first served overview and page of rollouts, while indexing), 200,000 rollouts (${megabytes(largeFile)} MB) vs 10,000 (${megabytes(smallFile)} MB)`,
        baseline: { label: `10,000 rollouts (${percent(small.first_render_share)})`, value: small.first_render_ms, unit: 'ms' },
        measured: { label: `200,000 rollouts (${percent(large.first_render_share)})`, value: large.first_render_ms, unit: 'ms' },
        lowerIsBetter: true,
      },
      {
        name: 'viewer: time until the whole run is indexed, 200,000 rollouts vs 10,000',
        baseline: { label: '10,000 rollouts', value: small.indexed_ms, unit: 'ms' },
        measured: { label: '200,000 rollouts', value: large.indexed_ms, unit: 'ms' },
        lowerIsBetter: true,
      },
      {
        name: 'viewer: peak RSS serving the run, 200,000 rollouts vs 10,000',
        baseline: { label: '10,000 rollouts', value: small.peak_rss_mb, unit: 'MB' },
        measured: { label: '200,000 rollouts', value: large.peak_rss_mb, unit: 'MB' },
        lowerIsBetter: true,
      },
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
