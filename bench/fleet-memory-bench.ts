import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { qwen3Directory } from '../test/support/qwen3.js';
import type { TargetResult } from './bench-result.js';
import { build, writeRows } from './collect-bench.js';
import { cpuSecondsOf } from './process-cpu.js';

/**
 * Issue 26: the live memory an episode holds while it waits on the policy, in the real `gymnast
 * collect` (vllm-completions, arithmetic rows, the CLI as built) against a server that answers each
 * rollout's first turn and holds its second (bench/hold-server-process.ts, its own process): N
 * rollouts at concurrency N are all in flight, one turn done. The collect process then collects
 * garbage (--expose-gc, bench/heap-probe.mjs) and reports its heap; the memory of one episode is the
 * growth of the heap from a smaller N to a larger one, which leaves out what every run holds (the
 * tokenizer, the code). Heap after collection is what V8 keeps live: the JSON bodies undici holds are
 * Buffers outside it.
 *
 * Each request in flight up to 1,024 holds an HTTP/1.1 connection of its own (undici's Client, Node's
 * socket: about 5 KB), and past it waits in the client for one (JsonClient's cap per server): 256 →
 * 1,024 measures an episode with its connection, 2,048 → 4,096 one whose request waits for one, as
 * most do at fleet scale (8,192 in flight on 4 replicas).
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'gymnast.js');
const HEAP_PROBE = fileURLToPath(new URL('./heap-probe.mjs', import.meta.url));
const HOLD_SERVER = fileURLToPath(new URL('./hold-server-process.ts', import.meta.url));
const REPEATS = 4;
/** The most connections gymnast opens to one server (JsonClient's default): requests past it wait in the client. */
const CONNECTIONS = 1_024;
/**
 * After the server has every first turn answered and holds what it can, the client reads the last
 * answers and queues their second turns: thousands of answers, seconds on a loaded machine. It has
 * settled once it spends under SETTLED_CPU_S in a SETTLE_SAMPLE_MS twice running: then every episode
 * has its first turn done, whatever the load (a fixed wait read some mid-turn, ±0.7 KB run to run).
 */
const SETTLE_SAMPLE_MS = 500;
const SETTLED_CPU_S = 0.02;
const SETTLE_MAX_MS = 120_000;
const HELD_TIMEOUT_MS = 300_000;
/** What main measured at 96e35dd (before issue 26), KB per episode in flight: the runs of this suite there, on this machine. */
const MAIN_KB = { own: 21.1, queued: 13.4, long: 126.7 };

/** What the rollouts say: a system prompt of `systemWords` words before each question, answers of `replyWords` words (else `ok`). */
export interface Workload {
  systemWords?: number;
  replyWords?: number;
}

/** About 2,000 Qwen3 tokens of system prompt (`ruleN` is ~3 tokens) and 250-token answers: what a fleet-scale workload sends. */
const LONG: Workload = { systemWords: 700, replyWords: 250 };

/** The same system prompt for every row, as a run's rows share one. */
const systemPrompt = (words: number) => Array.from({ length: words }, (_, i) => `rule${i % 97}`).join(' ');

/**
 * The collect process's heap after two full collections, with `inFlight` episodes waiting on their
 * second turn; `snapshot` also writes a heap snapshot there (to see what holds it: a diff of two).
 */
export async function heldEpisodeHeap(inFlight: number, workload: Workload = {}, snapshot?: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-bench-fleet-memory-'));
  const holding = Math.min(inFlight, CONNECTIONS);
  const server = spawn(process.execPath, ['--import', 'tsx', HOLD_SERVER, String(inFlight), String(holding), String(workload.replyWords ?? 0)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let collect: ReturnType<typeof spawn> | undefined;
  try {
    const lines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
    const url = String((await lines.next()).value).trim();
    const input = join(dir, 'rows.jsonl');
    await writeRows(input, inFlight / REPEATS, workload.systemWords ? systemPrompt(workload.systemWords) : undefined);
    const heapFile = join(dir, 'heap.json');
    const args = ['--policy', 'vllm-completions', '--base-url', url, '--model', 'gymnast-test-model', '--tokenizer', qwen3Directory];
    const run = ['-i', input, '-o', join(dir, 'out.jsonl'), '-c', String(inFlight), '--num-repeats', String(REPEATS)];
    collect = spawn(process.execPath, ['--expose-gc', '--import', HEAP_PROBE, BIN, 'collect', ...args, ...run], {
      cwd: ROOT,
      stdio: 'ignore',
      env: { ...process.env, GYMNAST_BENCH_HEAP_FILE: heapFile, ...(snapshot ? { GYMNAST_BENCH_HEAP_SNAPSHOT: snapshot } : {}) },
    });
    const timer = setTimeout(() => server.kill('SIGTERM'), HELD_TIMEOUT_MS);
    const held = await lines.next().finally(() => clearTimeout(timer));
    if (!String(held.value).startsWith('held '))
      throw new Error(`fleet memory bench: the hold server said ${JSON.stringify(held.value)} (or nothing within ${HELD_TIMEOUT_MS} ms)`);
    await settled(collect.pid!);
    collect.kill('SIGUSR2');
    return (await readWhenWritten(heapFile)).heapUsed;
  } finally {
    collect?.kill('SIGKILL');
    server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits until process `pid` is idle (see SETTLED_CPU_S). */
async function settled(pid: number): Promise<void> {
  const deadline = performance.now() + SETTLE_MAX_MS;
  let quiet = 0;
  let last = cpuSecondsOf(pid);
  while (quiet < 2 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_SAMPLE_MS));
    const now = cpuSecondsOf(pid);
    quiet = now - last < SETTLED_CPU_S ? quiet + 1 : 0;
    last = now;
  }
}

/** The probe's report, once it has written it. */
async function readWhenWritten(path: string): Promise<NodeJS.MemoryUsage> {
  for (;;) {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as NodeJS.MemoryUsage;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** KB of heap per episode in flight: the growth from `from` episodes to `to`. */
async function perEpisodeKb(from: number, to: number, workload: Workload = {}): Promise<number> {
  const low = await heldEpisodeHeap(from, workload);
  const high = await heldEpisodeHeap(to, workload);
  return (high - low) / (to - from) / 1024;
}

const halved = (measured: number, main: number, name: string): TargetResult => ({
  name,
  measured: { label: 'now', value: measured, unit: 'KB' },
  target: { label: 'half of main', value: main / 2, unit: 'KB', source: `issue 26: at least halved; main at 96e35dd held ${main} KB` },
  lowerIsBetter: true,
});

export async function fleetMemory(): Promise<TargetResult[]> {
  await build();
  const own = await perEpisodeKb(256, CONNECTIONS);
  const queued = await perEpisodeKb(2 * CONNECTIONS, 4 * CONNECTIONS);
  const long = await perEpisodeKb(256, CONNECTIONS, LONG);
  return [
    halved(
      own,
      MAIN_KB.own,
      'fleet memory: heap per episode in flight, one turn done, its request on a connection of its own (256 → 1,024 in flight; arithmetic, 2-token answers)',
    ),
    halved(
      queued,
      MAIN_KB.queued,
      'fleet memory: heap per episode in flight, its request waiting in the client for a connection (2,048 → 4,096 in flight, 1,024 connections)',
    ),
    halved(
      long,
      MAIN_KB.long,
      'fleet memory: heap per episode in flight with a ~2,000-token system prompt and 250-token answers, on a connection of its own (256 → 1,024)',
    ),
  ];
}
