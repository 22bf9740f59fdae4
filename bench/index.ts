import type { BenchResult } from './bench-result.js';
import { engineOverhead, scheduleCost } from './engine-bench.js';

/**
 * `npm run bench`: every benchmark prints a ratio against a baseline measured in the same run, so the
 * numbers mean something on a noisy 2-core machine. Later capabilities add their suites here.
 */
const suites: (() => Promise<BenchResult>)[] = [scheduleCost, engineOverhead];

for (const suite of suites) {
  const result = await suite();
  const ratio = result.measured.value / result.baseline.value;
  const format = (side: BenchResult['baseline']) => `${side.label} ${side.value.toFixed(1)} ${side.unit}`;
  process.stdout.write(`${result.name}\n  ${format(result.measured)} vs ${format(result.baseline)}: ${ratio.toFixed(2)}×${result.lowerIsBetter ? ' (lower is better)' : ''}\n`);
}
