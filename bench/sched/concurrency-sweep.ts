import { startAutoConcurrency } from '../../src/collect/auto-concurrency.js';
import { collectDefaults } from '../../src/collect/collect-settings.js';
import type { Outage } from '../../src/testing/index.js';
import type { BenchLine } from '../bench-result.js';
import { type BenchFleet, REPLICAS, startBenchFleet } from './bench-fleet.js';
import { mean, percent } from './fleet-timeline.js';
import { workloadTask } from './fleet-workload.js';
import { runWorkload } from './run-workload.js';

const ROLLOUTS = 1024;
const PROMPT_TOKENS = 6000;
const SWEEP = [128, 256, 384, 512];
/** When a replica pauses or drops out in the recovery runs, and for how long (simulated seconds). */
const EVENT = { at: 20, duration: 20 };

export const concurrencyWorkload = `${ROLLOUTS} rollouts with prompts of ~${PROMPT_TOKENS} tokens each (long contexts: the KV cache, not the batch limit, bounds a replica), one turn, replies from the profile (median 512, capped at 4096), ${REPLICAS} replicas; fixed concurrencies ${SWEEP.join(', ')} and auto (from ${collectDefaults.autoConcurrency.initialPerReplica} a replica, polling /metrics every simulated second)`;

interface ConcurrencyRun {
  label: string;
  /** Tokens decoded a simulated second until the last rollout started (the drain after it is the same for every concurrency). */
  throughput: number;
  preemptions: number;
  requests: number;
  makespan: number;
  /** The limit at each poll, with `auto`. */
  limits: { at: number; limit: number }[];
  decodedBy: number[][];
  wallSeconds: number;
}

type Event = { kind: 'drops out'; outages: Outage[] } | { kind: 'pauses' };

async function run(concurrency: number | 'auto', event?: Event): Promise<ConcurrencyRun> {
  const fleet = await startBenchFleet(event?.kind === 'drops out' ? { outages: event.outages } : {});
  const limits: { at: number; limit: number }[] = [];
  const sleep = (ms: number, signal: AbortSignal) => fleet.clock.sleepUntil(fleet.clock.now() + ms / 1000, signal);
  const auto =
    concurrency === 'auto'
      ? startAutoConcurrency(fleet.policy, { client: fleet.client, sleep, onPoll: (limit) => limits.push({ at: fleet.clock.now(), limit }) })
      : undefined;
  if (event?.kind === 'pauses') pauseReplicaZero(fleet);
  try {
    const tasks = Array.from({ length: ROLLOUTS }, (_, index) => workloadTask(index, PROMPT_TOKENS));
    const result = await runWorkload(fleet, {
      tasks,
      groupSize: 1,
      shape: { turns: () => 1, observationTokens: 0, stepSeconds: 0 },
      schedule: { kind: 'async', concurrency: auto ? auto.ceiling : (concurrency as number) },
      ...(auto ? { limit: auto.limit } : {}),
      maxTokens: 4096,
    });
    const sum = (key: 'preemptions' | 'requestsSubmitted') => result.reports.reduce((total, report) => total + report[key], 0);
    return {
      label: String(concurrency),
      throughput: mean(result.decoded, 0, Math.max(1, Math.floor(result.lastStart))),
      preemptions: sum('preemptions'),
      requests: sum('requestsSubmitted'),
      makespan: result.makespan,
      limits,
      decodedBy: fleet.decodedBy.map((perSecond) => [...perSecond]),
      wallSeconds: result.wallSeconds,
    };
  } finally {
    await auto?.stop();
    await fleet.close();
  }
}

function pauseReplicaZero(fleet: BenchFleet): void {
  const engine = fleet.sim.fleet.replicas[0]!.engine;
  void fleet.clock.sleepUntil(EVENT.at).then(() => engine.pause('keep'));
  void fleet.clock.sleepUntil(EVENT.at + EVENT.duration).then(() => engine.resume());
}

/**
 * Seconds after the event until the replicas left serving decode, over 3 s, at least 90% of what they
 * decoded in the 10 s before it; undefined when they never do before it ends.
 */
function recoverySeconds(decodedBy: number[][]): number | undefined {
  const left = decodedBy.slice(1);
  const rate = (from: number, to: number) => left.reduce((sum, perSecond) => sum + mean(perSecond, from, to), 0);
  const before = rate(EVENT.at - 10, EVENT.at);
  for (let second = EVENT.at; second < EVENT.at + EVENT.duration - 3; second++) if (rate(second, second + 3) >= 0.9 * before) return second - EVENT.at;
  return undefined;
}

const limitTrace = (limits: readonly { at: number; limit: number }[]) =>
  limits
    .filter((_, i) => i % 5 === 0)
    .map(({ at, limit }) => `${at.toFixed(0)}s:${limit}`)
    .join(' ');

/**
 * `--concurrency auto` (issue 26, item 3): a sweep of fixed concurrencies and the controller on the same
 * KV-bound rollouts, through gymnast's scheduler; then the controller with a replica dropping out and
 * one pausing, and how soon the replicas left serving are as busy as before.
 */
export async function concurrencySweep(): Promise<BenchLine[]> {
  const sweep: ConcurrencyRun[] = [];
  for (const concurrency of SWEEP) sweep.push(await run(concurrency));
  const auto = await run('auto');
  const dropped = await run('auto', { kind: 'drops out', outages: [{ replica: 0, ...EVENT }] });
  const paused = await run('auto', { kind: 'pauses' });
  const best = sweep.reduce((top, result) => (result.throughput > top.throughput ? result : top));
  // What a fixed concurrency does when the fleet shrinks under it: the best of the sweep, same drop-out.
  const droppedFixed = await run(Number(best.label), { kind: 'drops out', outages: [{ replica: 0, ...EVENT }] });
  const calm = sweep.filter((result) => result.preemptions <= 0.01 * result.requests);
  const bestCalm = calm.reduce((top, result) => (result.throughput > top.throughput ? result : top), calm[0] ?? best);
  const out = process.stdout;
  out.write(`sched: --concurrency auto: ${concurrencyWorkload}\n`);
  for (const result of [...sweep, auto])
    out.write(
      `  ${result.label}: ${result.throughput.toFixed(0)} tokens/s until the last rollout started, ${result.preemptions} preemptions (${percent(result.preemptions / result.requests)} of ${result.requests} requests), makespan ${result.makespan.toFixed(1)} s, ${result.wallSeconds.toFixed(0)} s of wall time\n`,
    );
  out.write(`  auto's limit (every 5 polls): ${limitTrace(auto.limits)}\n`);
  const recoveries = [
    ['drops out', dropped],
    ['pauses', paused],
  ] as const;
  for (const [kind, result] of recoveries) {
    const seconds = recoverySeconds(result.decodedBy);
    out.write(
      `  replica 0 ${kind} at ${EVENT.at} s for ${EVENT.duration} s: the others back to 90% of their tokens/s after ${seconds ?? 'more than'} ${seconds === undefined ? EVENT.duration : ''}s; ${result.preemptions} preemptions; limit ${limitTrace(result.limits)}\n`,
    );
  }
  out.write(
    `  for comparison, fixed ${droppedFixed.label} with replica 0 dropping out: the others back to 90% after ${recoverySeconds(droppedFixed.decodedBy) ?? `more than ${EVENT.duration}`} s; ${droppedFixed.preemptions} preemptions (${percent(droppedFixed.preemptions / droppedFixed.requests)} of requests)\n`,
  );
  const recoveryLine = ([kind, result]: (typeof recoveries)[number]): BenchLine => ({
    name: `sched: --concurrency auto, seconds until the replicas left are as busy after replica 0 ${kind} (90% of their tokens/s before)`,
    measured: { label: 'recovered after', value: recoverySeconds(result.decodedBy) ?? EVENT.duration, unit: 'simulated s' },
    target: { label: 'goal', value: 10, unit: 'simulated s', source: 'issue 26' },
    lowerIsBetter: true,
  });
  return [
    {
      name: `sched: --concurrency auto vs the best fixed concurrency of the sweep (${best.label}), tokens/s`,
      baseline: { label: `fixed ${best.label}`, value: best.throughput, unit: 'tokens/s' },
      measured: { label: 'auto', value: auto.throughput, unit: 'tokens/s' },
      lowerIsBetter: false,
    },
    {
      name: "sched: --concurrency auto, tokens/s / the best fixed concurrency's",
      measured: { label: 'auto / best fixed', value: auto.throughput / best.throughput, unit: '×' },
      target: { label: 'goal', value: 0.95, unit: '×', source: 'issue 26' },
      lowerIsBetter: false,
    },
    {
      name: `sched: --concurrency auto vs the best fixed concurrency preempting at most 1% (${bestCalm.label}), tokens/s`,
      baseline: { label: `fixed ${bestCalm.label}`, value: bestCalm.throughput, unit: 'tokens/s' },
      measured: { label: 'auto', value: auto.throughput, unit: 'tokens/s' },
      lowerIsBetter: false,
    },
    {
      name: 'sched: --concurrency auto, preemptions as % of requests',
      measured: { label: 'preempted', value: (auto.preemptions / auto.requests) * 100, unit: '%' },
      target: { label: 'goal', value: 1, unit: '%', source: 'issue 26' },
      lowerIsBetter: true,
    },
    ...recoveries.map(recoveryLine),
  ];
}
