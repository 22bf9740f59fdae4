import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { runSandboxed, SandboxPool } from '../src/sandbox/index.js';
import { sandboxRuntime } from '../src/sandbox/sandbox-runtime.js';
import { processesLeft } from '../test/sandbox/host-state.js';
import type { BenchLine } from './bench-result.js';

const PROGRAM = 'print(1)';
const CONCURRENCY = 2;
const SEQUENTIAL = 60;
const THROUGHPUT = 200;
const SOAK = 1000;

/** The same trivial program run bare: the interpreter spawned directly, the floor a sandbox adds to. */
function runBare(): Promise<number> {
  const runtime = sandboxRuntime('python');
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(runtime.interpreter, ['-I', '-u', '-c', PROGRAM], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`bare run exited ${code}`))));
  });
}

async function runBoxed(pool?: SandboxPool): Promise<number> {
  const started = performance.now();
  const request = { language: 'python' as const, code: PROGRAM };
  const verdict = await (pool ? pool.run(request) : runSandboxed(request));
  if (verdict.status !== 'ok') throw new Error(`a sandboxed run ended ${verdict.status}: ${verdict.stderr}`);
  return performance.now() - started;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function sequential(run: () => Promise<number>): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < SEQUENTIAL; index++) times.push(await run());
  return times;
}

/** Runs per second with `CONCURRENCY` at a time. */
async function throughput(run: () => Promise<number>, count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) await run();
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

const mounts = (): number => readFileSync('/proc/self/mountinfo', 'utf8').split('\n').length;
const gymnastTemp = (): number => readdirSync(tmpdir()).filter((name) => name.startsWith('gymnast-')).length;

/**
 * The sandbox's cost on a trivial Python program (`print(1)`): runs per second two at a time against
 * the interpreter spawned bare, the median overhead of one run (goal ≤ 100 ms, issue 28), and 1,000
 * sandboxed runs that must leave no process, mount or temporary file behind.
 */
export async function sandboxCost(): Promise<BenchLine[]> {
  await runBoxed();
  await runBare();
  const bareTimes = await sequential(runBare);
  const boxedTimes = await sequential(() => runBoxed());
  const pool = new SandboxPool(CONCURRENCY);
  const bareRate = await throughput(runBare, THROUGHPUT);
  const boxedRate = await throughput(() => runBoxed(pool), THROUGHPUT);
  const before = { mounts: mounts(), temp: gymnastTemp() };
  await throughput(() => runBoxed(pool), SOAK);
  const leaked = processesLeft('gymnast-bench-no-marker').length + Math.max(0, mounts() - before.mounts) + Math.max(0, gymnastTemp() - before.temp);
  return [
    {
      name: `sandboxed runs of print(1) per second, ${CONCURRENCY} at a time (${THROUGHPUT} runs), vs the interpreter spawned bare`,
      baseline: { label: 'bare python3', value: bareRate, unit: 'runs/s' },
      measured: { label: 'bwrap + prlimit', value: boxedRate, unit: 'runs/s' },
      lowerIsBetter: false,
    },
    {
      name: `median time of one run of print(1) (${SEQUENTIAL} in a row), sandboxed vs bare; their difference is the overhead`,
      baseline: { label: 'bare', value: median(bareTimes), unit: 'ms' },
      measured: { label: 'sandboxed', value: median(boxedTimes), unit: 'ms' },
      lowerIsBetter: true,
    },
    {
      name: 'median sandbox overhead per run (sandboxed median - bare median)',
      measured: { label: 'overhead', value: median(boxedTimes) - median(bareTimes), unit: 'ms' },
      target: { label: 'goal', value: 100, unit: 'ms', source: 'issue 28' },
      lowerIsBetter: true,
    },
    {
      name: `${SOAK.toLocaleString('en')} sandboxed runs: processes, mounts and temporary files left behind`,
      measured: { label: 'leaked', value: leaked, unit: 'items' },
      target: { label: 'none', value: 0, unit: 'items', source: 'issue 28' },
      lowerIsBetter: true,
    },
  ];
}
