import { writeFileSync } from 'node:fs';
import { createSeededRandom, mixSeed } from '../../src/util/seeded-random.js';
import type { BenchLine } from '../bench-result.js';
import { REPLICAS, startBenchFleet } from './bench-fleet.js';
import { fleetBusy, mean, percent, windows } from './fleet-timeline.js';
import { type WorkloadShape, workloadTask } from './fleet-workload.js';
import { runWorkload, type WorkloadResult } from './run-workload.js';
import { lineChart } from './svg-chart.js';

const TASKS = 256;
const GROUP = 4;
const CONCURRENCY = 256;
const MAX_TOKENS = 8192;
const shape: WorkloadShape = { turns: (task) => createSeededRandom(mixSeed(3, task)).int(1, 4), observationTokens: 150, stepSeconds: 0.5 };

/** The workload, as printed. */
export const asynchronyWorkload = `${TASKS * GROUP} rollouts (${TASKS} prompts of ~400 tokens × ${GROUP}), 1–4 turns each (seeded per prompt), replies from the profile's long tail (log-normal, median 512, capped at ${MAX_TOKENS}), tool outputs of 150 tokens taking 0.5 s, ${CONCURRENCY} in flight, ${REPLICAS} replicas`;

async function run(kind: 'async' | 'lockstep'): Promise<WorkloadResult> {
  const fleet = await startBenchFleet();
  try {
    const tasks = Array.from({ length: TASKS }, (_, index) => workloadTask(index, 400));
    return await runWorkload(fleet, { tasks, groupSize: GROUP, shape, schedule: { kind, concurrency: CONCURRENCY }, maxTokens: MAX_TOKENS });
  } finally {
    await fleet.close();
  }
}

/**
 * Asynchrony (issue 26, item 1): the same rollouts, replies and tool times under the async schedule
 * and under lockstep (NeMo RL's synchronous loop: batches of `CONCURRENCY`, every turn waiting for the
 * batch's slowest); the makespans, and the fleet's busy fraction over time from the simulator's own
 * accounting. Writes docs/sched-utilization.svg.
 */
export async function asynchrony(svgPath: string): Promise<BenchLine[]> {
  const asyncRun = await run('async');
  const lockstepRun = await run('lockstep');
  const seconds = Math.ceil(lockstepRun.makespan);
  const asyncBusy = fleetBusy(asyncRun.reports, Math.ceil(asyncRun.makespan));
  const lockstepBusy = fleetBusy(lockstepRun.reports, seconds);
  const tail = Math.floor(asyncRun.lastStart);
  const beforeTail = mean(asyncBusy, 0, tail);
  const failures = [asyncRun, lockstepRun].map((result) => result.records.filter((record) => record.record_type === 'failure').length);
  const out = process.stdout;
  out.write(`sched: asynchrony: ${asynchronyWorkload}\n`);
  for (const [name, result, busy] of [
    ['async', asyncRun, asyncBusy],
    ['lockstep', lockstepRun, lockstepBusy],
  ] as const) {
    const generated = result.reports.reduce((sum, report) => sum + report.generationTokens, 0);
    out.write(
      `  ${name}: makespan ${result.makespan.toFixed(1)} s, last rollout started at ${result.lastStart.toFixed(1)} s, fleet busy ${percent(mean(busy))} overall, ${generated} tokens, ${result.reports.reduce((sum, report) => sum + report.preemptions, 0)} preemptions, ${failures[name === 'async' ? 0 : 1]} failed rollouts, ${result.wallSeconds.toFixed(0)} s of wall time\n`,
    );
    out.write(
      `    busy fraction per 10 s: ${windows(busy, 10)
        .map((fraction) => Math.round(fraction * 100))
        .join(' ')}\n`,
    );
  }
  const peak = Math.max(...asyncRun.decoded, ...lockstepRun.decoded);
  const panel = (name: string, result: WorkloadResult, busy: readonly number[]) => ({
    title: `${name}: makespan ${result.makespan.toFixed(0)} s`,
    series: [
      { label: 'busy fraction', color: '#1f77b4', points: busy.map((fraction, second) => [second, fraction] as const) },
      { label: 'tokens/s (share of the peak)', color: '#ff7f0e', points: result.decoded.map((tokens, second) => [second, tokens / peak] as const) },
    ],
  });
  writeFileSync(
    svgPath,
    lineChart({
      title: `Fleet utilization, ${REPLICAS} simulated H100s: the same ${TASKS * GROUP} rollouts, async vs lockstep`,
      panels: [
        { ...panel('async', asyncRun, asyncBusy), markers: [{ x: asyncRun.lastStart, label: 'last rollout starts: the drain tail' }] },
        panel("lockstep (NeMo RL's synchronous loop)", lockstepRun, lockstepBusy),
      ],
      xMax: seconds,
      xLabel: 'simulated seconds',
      yMax: 1,
      yLabel: 'fraction',
      yTicks: [0, 0.25, 0.5, 0.75, 1],
      yFormat: (value) => `${Math.round(value * 100)}%`,
    }),
  );
  out.write(`  picture: ${svgPath}\n`);
  return [
    {
      name: 'sched: asynchrony, makespan of the same rollouts',
      baseline: { label: 'async', value: asyncRun.makespan, unit: 'simulated s' },
      measured: { label: 'lockstep', value: lockstepRun.makespan, unit: 'simulated s' },
      lowerIsBetter: true,
    },
    {
      name: 'sched: asynchrony, lockstep makespan / async makespan',
      measured: { label: 'lockstep / async', value: lockstepRun.makespan / asyncRun.makespan, unit: '×' },
      target: { label: 'goal', value: 2, unit: '×', source: 'issue 26' },
      lowerIsBetter: false,
    },
    {
      name: `sched: asynchrony, async fleet busy until the drain tail (0–${tail} s)`,
      measured: { label: 'busy', value: beforeTail * 100, unit: '%' },
      target: { label: 'goal', value: 95, unit: '%', source: 'issue 26' },
      lowerIsBetter: false,
    },
  ];
}
