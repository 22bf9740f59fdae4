import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createSeededRandom } from '../src/util/seeded-random.js';
import type { RedisServer } from '../test/support/redis-server.js';
import type { BenchLine } from './bench-result.js';

const run = promisify(execFile);
const root = new URL('../', import.meta.url).pathname;
const bin = join(root, 'bin/gymnast.js');

/** Rollouts of the run: examples/arithmetic.jsonl's 16 rows, this many times each. */
const REPEATS = 32;
const WORKERS = 4;
const WORKER_KILLS = 20;
/** After which worker kills the coordinator is killed (and resumed), and Redis restarted. */
const COORDINATOR_KILLS = new Set([4, 10, 16]);
const REDIS_RESTART = 13;

/**
 * The exactly-once run: one collection through the queue while 20 workers are killed with -9
 * (each replaced), the coordinator 3 times (each resumed), and Redis restarted once. Every key must end
 * exactly once (a success or a typed failure), the aggregate must equal `gymnast aggregate` over the
 * final file, and the key set a single-machine run's.
 */
export async function queueChaos(redis: RedisServer): Promise<BenchLine[]> {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-queue-chaos-'));
  const local = join(dir, 'local.jsonl');
  const output = join(dir, 'queued.jsonl');
  await run(process.execPath, [bin, ...collectArgs(local)], { maxBuffer: 1 << 24 });
  const random = createSeededRandom(27);
  const workers = Array.from({ length: WORKERS }, () => startWorker(redis.url));
  let coordinator = spawn(process.execPath, [bin, ...collectArgs(output), '--queue', redis.url], { stdio: 'ignore' });
  let resumes = 0;
  try {
    for (let kill = 1; kill <= WORKER_KILLS && coordinator.exitCode === null; kill++) {
      await new Promise((resolve) => setTimeout(resolve, 300 + random.int(0, 900)));
      const index = random.int(0, WORKERS - 1);
      workers[index]!.kill('SIGKILL');
      workers[index] = startWorker(redis.url);
      if (COORDINATOR_KILLS.has(kill) && coordinator.exitCode === null) {
        await waitForRows(output);
        const exited = once(coordinator, 'exit');
        coordinator.kill('SIGKILL');
        await exited;
        coordinator = spawn(process.execPath, [bin, ...collectArgs(output), '--queue', redis.url, '--resume'], { stdio: 'ignore' });
        resumes += 1;
      }
      if (kill === REDIS_RESTART) {
        await redis.stop();
        await redis.restart();
      }
    }
    const [code] = coordinator.exitCode === null ? ((await once(coordinator, 'exit')) as [number]) : [coordinator.exitCode];
    if (code !== 0) throw new Error(`the last coordinator exited ${code}`);
  } finally {
    await Promise.all(workers.map(stop));
  }
  const planned = 16 * REPEATS;
  const keys = [...rows(output), ...rows(output.replace('.jsonl', '_failures.jsonl'))].map(keyOf);
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  const exactlyOnce = [...counts.values()].filter((count) => count === 1).length;
  const sameKeys = JSON.stringify([...new Set(keys)].sort()) === JSON.stringify(rows(local).map(keyOf).sort());
  const recomputed = join(dir, 'recomputed.json');
  await run(process.execPath, [bin, 'aggregate', '-i', output, '-o', recomputed]);
  const aggregate = readFileSync(output.replace('.jsonl', '_aggregate_metrics.json'), 'utf8');
  const sameAggregate = sameJson(readFileSync(recomputed, 'utf8'), aggregate);
  // Seeded, so a rollout run again after a kill ends as it did the first time: the aggregate is the single-machine run's too.
  const asLocal = sameJson(readFileSync(local.replace('.jsonl', '_aggregate_metrics.json'), 'utf8'), aggregate);
  process.stdout.write(
    `queue chaos: ${planned} rollouts, ${WORKER_KILLS} workers killed with -9, the coordinator ${resumes} times (resumed), Redis restarted once: ${keys.length} rows, ${new Set(keys).size} keys; key set ${sameKeys ? 'equals' : 'differs from'} a single-machine run's; aggregate ${sameAggregate ? 'equals' : 'differs from'} gymnast aggregate over the file and ${asLocal ? 'equals' : 'differs from'} the single-machine run's\n`,
  );
  return [
    {
      name: `queue chaos: keys written exactly once after ${WORKER_KILLS} worker kills, ${resumes} coordinator kills and a Redis restart (${planned} rollouts)`,
      measured: { label: 'keys once', value: exactlyOnce, unit: 'keys' },
      target: { label: 'every planned key', value: planned, unit: 'keys', source: 'issue 27' },
      lowerIsBetter: false,
    },
    {
      name: "queue chaos: the run's key set and aggregate against a single-machine run's, and its aggregate against gymnast aggregate over its file",
      measured: { label: 'equal', value: [sameKeys, sameAggregate, asLocal].filter(Boolean).length, unit: 'of 3' },
      target: { label: 'all equal', value: 3, unit: 'of 3', source: 'issue 27' },
      lowerIsBetter: false,
    },
  ];
}

function collectArgs(output: string): string[] {
  return ['collect', '-i', join(root, 'examples/arithmetic.jsonl'), '-o', output, '--num-repeats', `${REPEATS}`, '--seed', '7', '-c', '64'];
}

function startWorker(url: string): ChildProcess {
  return spawn(process.execPath, [bin, 'worker', '--queue', url, '-c', '8', '--stall-timeout', '1'], { stdio: 'ignore' });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** Waits until the run has rows (a coordinator killed while it plans has nothing to resume yet). */
async function waitForRows(output: string): Promise<void> {
  while (!existsSync(output) || readFileSync(output, 'utf8').length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
}

function rows(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const keyOf = (row: Record<string, unknown>) => `${row._ng_task_index}:${row._ng_rollout_index}`;

/** The same aggregate, whatever the key order; `computed_by` (which the run's file names and `gymnast aggregate` does not) aside. */
function sameJson(a: string, b: string): boolean {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .filter(([key]) => key !== 'computed_by')
              .sort(([x], [y]) => x.localeCompare(y))
              .map(([key, inner]) => [key, sorted(inner)]),
          )
        : value;
  return JSON.stringify(sorted(JSON.parse(a))) === JSON.stringify(sorted(JSON.parse(b)));
}
