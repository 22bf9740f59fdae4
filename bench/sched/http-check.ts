import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { RemotePolicy, vllmCompletionsBackend } from '../../src/policy/index.js';
import { type ReplicaReport, ScaledClock } from '../../src/testing/index.js';
import { TemplateRenderer } from '../../src/tokens/index.js';
import { createSeededRandom, mixSeed } from '../../src/util/seeded-random.js';
import type { BenchLine } from '../bench-result.js';
import { benchTokenizer, PROFILE, REPLICAS, startBenchFleet } from './bench-fleet.js';
import { type WorkloadShape, workloadTask } from './fleet-workload.js';
import { runWorkload, type WorkloadResult, type WorkloadRun } from './run-workload.js';

const TIME_SCALE = 4;
const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const shape: WorkloadShape = { turns: (task) => createSeededRandom(mixSeed(3, task)).int(1, 4), observationTokens: 150, stepSeconds: 0.5 };
const workload: WorkloadRun = {
  tasks: Array.from({ length: 32 }, (_, index) => workloadTask(index, 400)),
  groupSize: 4,
  shape,
  schedule: { kind: 'async', concurrency: 64 },
  maxTokens: 8192,
};

/** `gymnast serve sim` in a child process: its replicas' base URLs, once it has printed them. */
async function serveSim(): Promise<{ child: ChildProcess; urls: string[] }> {
  const child = spawn(
    process.execPath,
    [bin, 'serve', 'sim', '--replicas', String(REPLICAS), '--port', '0', '--time-scale', String(TIME_SCALE), '--seed', '26'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const urls: string[] = [];
  for await (const line of createInterface({ input: child.stdout! })) {
    const url = /^replica \d+: (\S+)$/.exec(line)?.[1];
    if (url) urls.push(url);
    if (urls.length === REPLICAS) return { child, urls };
  }
  throw new Error('gymnast serve sim ended before printing its replicas');
}

async function overHttp(): Promise<WorkloadResult> {
  const { child, urls } = await serveSim();
  const { tokenizer, template } = await benchTokenizer();
  const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls, tokenizer, model: PROFILE.model, maxModelLen: PROFILE.maxModelLen });
  const reports = () => Promise.all(urls.map(async (url) => (await (await fetch(`${url}/sim/stats`)).json()) as ReplicaReport));
  try {
    return await runWorkload({ policy, renderer: new TemplateRenderer(tokenizer, template), clock: new ScaledClock(TIME_SCALE), reports }, workload);
  } finally {
    await policy.close();
    child.kill('SIGINT');
    await once(child, 'exit');
  }
}

/**
 * The in-process measurement checked against HTTP: the same small workload (128 rollouts of the
 * asynchrony shape, 64 in flight) on the virtual clock in this process, and over HTTP against
 * `gymnast serve sim` in a child process at `--time-scale 4`, whose release lag it reports.
 */
export async function httpCheck(): Promise<BenchLine[]> {
  const fleet = await startBenchFleet();
  const local = await runWorkload(fleet, workload).finally(() => fleet.close());
  const remote = await overHttp();
  const lag = remote.reports.map((report) => report.meanReleaseLagSeconds.toFixed(3)).join(', ');
  const tokens = (result: WorkloadResult) => result.reports.reduce((sum, report) => sum + report.generationTokens, 0);
  process.stdout.write(
    `sched: the same 128 rollouts (asynchrony's shape, 64 in flight) in process and over HTTP (gymnast serve sim in a child, --time-scale ${TIME_SCALE}): makespan ${local.makespan.toFixed(1)} s and ${remote.makespan.toFixed(1)} s, ${tokens(local)} and ${tokens(remote)} tokens; over HTTP each replica's mean release lag ${lag} simulated s, ${remote.wallSeconds.toFixed(0)} s of wall time\n`,
  );
  return [
    {
      name: `sched: the in-process measurement against HTTP (gymnast serve sim, --time-scale ${TIME_SCALE}), makespan of the same 128 rollouts`,
      baseline: { label: 'in process', value: local.makespan, unit: 'simulated s' },
      measured: { label: 'over HTTP', value: remote.makespan, unit: 'simulated s' },
      lowerIsBetter: true,
    },
  ];
}
