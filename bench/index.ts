import { aggregateScaling } from './aggregate-bench.js';
import type { BenchLine, FixedFigure, Side } from './bench-result.js';
import { chunkedWriterMemory } from './chunked-writer-bench.js';
import { collectOverhead } from './collect-bench.js';
import { cookieJarCost } from './cookie-jar-bench.js';
import { collectMemory } from './collect-memory-bench.js';
import { embeddedDecodeSpeed, embeddedEpisodeThroughput } from './embedded-bench.js';
import { engineOverhead, scheduleCost } from './engine-bench.js';
import { extensibleCopyCost } from './extensible-copy-bench.js';
import { fastPaths } from './fast-paths-bench.js';
import { fleetClient } from './fleet-client-bench.js';
import { fleetMemory } from './fleet-memory-bench.js';
import { healthThroughput } from './health-bench.js';
import { httpClientThroughput } from './http-bench.js';
import { ledgerThroughput } from './ledger-bench.js';
import { queueChaosRun, queueScaling } from './queue-bench.js';
import { resourcesOverhead } from './resources-bench.js';
import { runSlotsScaling } from './run-slots-bench.js';
import { sandboxCost } from './sandbox-bench.js';
import { schedulingOnFleet } from './sched-bench.js';
import { streamFirstText } from './stream-bench.js';
import { trainAsyncOverlap } from './train-async-bench.js';
import { trainLearning } from './train-bench.js';
import { viewerScaling } from './viewer-bench.js';

/**
 * `npm run bench`: every benchmark prints a ratio against a baseline measured in the same run, so the
 * numbers mean something on a noisy 2-core machine; a fixed figure (a goal, or a number measured
 * elsewhere) is printed as a target, never as a baseline. Later capabilities add their suites here.
 * `npm run bench -- collect viewer` (or `BENCH=collect,viewer npm run bench`) runs only the suites named.
 */
const suites: Record<string, () => Promise<BenchLine | BenchLine[]>> = {
  schedule: scheduleCost,
  engine: engineOverhead,
  ledger: ledgerThroughput,
  http: httpClientThroughput,
  'embedded-decode': embeddedDecodeSpeed,
  'embedded-episodes': embeddedEpisodeThroughput,
  'embedded-stream': streamFirstText,
  collect: collectOverhead,
  'collect-memory': collectMemory,
  aggregate: aggregateScaling,
  resources: resourcesOverhead,
  viewer: viewerScaling,
  'extensible-copy': extensibleCopyCost,
  'chunked-writer': chunkedWriterMemory,
  'run-slots': runSlotsScaling,
  'cookie-jar': cookieJarCost,
  'fast-paths': fastPaths,
  'fleet-memory': fleetMemory,
  'fleet-client': fleetClient,
  health: healthThroughput,
  sched: schedulingOnFleet,
  sandbox: sandboxCost,
  queue: queueScaling,
  'queue-chaos': queueChaosRun,
  train: trainLearning,
  'train-async': trainAsyncOverlap,
};

const wanted = [...process.argv.slice(2), ...(process.env.BENCH ?? '').split(',')].map((name) => name.trim()).filter(Boolean);
const unknown = wanted.filter((name) => !(name in suites));
if (unknown.length > 0) {
  process.stderr.write(`bench: no suite ${unknown.join(', ')} (suites: ${Object.keys(suites).join(', ')})\n`);
  process.exit(2);
}

const format = (side: Side) => `${side.label} ${side.value.toFixed(side.value < 10 ? 3 : 0)} ${side.unit}`;

/** Whether the measurement reaches a target, as the line to print. */
function targetLine(measured: Side, target: FixedFigure, lowerIsBetter: boolean): string {
  const met = lowerIsBetter ? measured.value <= target.value : measured.value >= target.value;
  return `${target.label} ${lowerIsBetter ? '≤' : '≥'} ${target.value} ${target.unit} (${target.source}; a fixed figure, not measured in this run): ${met ? 'met' : 'not met'}${target.value === 0 ? '' : `, ${(measured.value / target.value).toFixed(2)}× of it`}`;
}

/**
 * Suites run only when named (`npm run bench -- sched`): the simulated fleet's, the fleet-scale
 * client's and the queue's take minutes, the sandbox's needs bubblewrap and runs 1,400 sandboxes, the
 * queue's need redis-server, and train's is a GRPO run of minutes.
 */
const onlyWhenNamed = new Set(['sched', 'fleet-memory', 'fleet-client', 'sandbox', 'queue', 'queue-chaos', 'train', 'train-async']);

for (const [name, suite] of Object.entries(suites)) {
  if (wanted.length > 0 ? !wanted.includes(name) : onlyWhenNamed.has(name)) continue;
  for (const result of [await suite()].flat()) {
    if (!('baseline' in result)) {
      process.stdout.write(`${result.name}\n  ${format(result.measured)} against the ${targetLine(result.measured, result.target, result.lowerIsBetter)}\n`);
      continue;
    }
    const ratio = result.measured.value / result.baseline.value;
    process.stdout.write(
      `${result.name}\n  ${format(result.measured)} vs ${format(result.baseline)}: ${ratio.toFixed(2)}× (${result.lowerIsBetter ? 'lower' : 'higher'} is better)\n`,
    );
    if (result.target) process.stdout.write(`  ${targetLine(result.measured, result.target, result.lowerIsBetter)}\n`);
  }
}
