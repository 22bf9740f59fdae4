import type { BenchResult } from './bench-result.js';
import { handCheckCosts } from './hand-checks-bench.js';
import { jinjaCompilerSpeed } from './jinja-bench.js';
import { tokenizerFastPaths } from './tokenizer-fast-paths-bench.js';
import { undiciPoolImport } from './undici-pool-bench.js';

/** Every fast path (docs/fast-paths.md) against the slow path it stands in for, in this run. */
export async function fastPaths(): Promise<BenchResult[]> {
  return [...(await handCheckCosts()), ...(await jinjaCompilerSpeed()), ...(await tokenizerFastPaths()), ...(await undiciPoolImport())];
}
