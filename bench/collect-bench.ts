import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { qwen3Directory } from '../test/support/qwen3.js';
import type { BenchLine, BenchResult } from './bench-result.js';

/**
 * Issue 13: the cost of collecting, for the real `gymnast collect` CLI (`--policy vllm-completions`,
 * arithmetic rows: the test model answers `ok`, so every rollout is two turns, the answer and the
 * retry after "incorrect, try again") against a Python collector doing what NeMo Gym's does
 * (bench/python-collector.py: asyncio, chat completions with token ids, verify in-process, append
 * JSONL), both in their own processes against the test inference server in a third
 * (bench/first-request-server.ts: Qwen3 tokenizer, zero latency).
 *
 * CPU is process CPU (user + system), never wall time: the gymnast child's getrusage at exit
 * (bench/child-usage.mjs, preloaded), minus its /proc/PID/stat CPU read by the server when the first
 * generation request arrives (startup); turns are the generation requests the server counted.
 *
 * The CLI is measured as shipped: the suite runs `npm run build` first, so bin/gymnast.js runs dist/
 * and not the sources through tsx (it refuses to measure if src/ changes under it before a run starts).
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'gymnast.js');
const USAGE_PRELOAD = fileURLToPath(new URL('./child-usage.mjs', import.meta.url));
const PYTHON_COLLECTOR = fileURLToPath(new URL('./python-collector.py', import.meta.url));
const NODE_COLLECTOR = fileURLToPath(new URL('./node-collector.mjs', import.meta.url));
const MODEL = 'gymnast-test-model';
const REPEATS = 4;
const CONCURRENCY = 64;
/** The issue's figure for its aiohttp collector: half of it is issue 13's target, printed as a target when aiohttp cannot run here. */
const ISSUE_AIOHTTP_MS_PER_TURN = 0.37;
/** Pythons that may have aiohttp: the one on PATH, and Debian's, where `apt-get install python3-aiohttp` puts it. */
const PYTHONS = ['python3', '/usr/bin/python3'];
const STARTUP_TARGET_CPU_S = 0.3;
const WIDE = 1_024;
/** A server that takes time to generate (a fast one: real servers take hundreds of ms), where concurrency should pay. */
const SLOW_SERVER_MS = 25;

const run = promisify(execFile);

/** One collector run as the server and the child's own accounting saw it. */
interface Measured {
  rollouts: number;
  turns: number;
  startupCpuS: number;
  cpuS: number;
  peakRssMb: number;
  /** CPU at the last generation request: what running the rollouts took, before the end-of-run work (aggregate metrics, health checks). */
  lastRequestCpuS: number;
  /** Peak RSS up to (about) the last generation request. */
  runPeakRssMb: number;
  /** Rollouts over the wall time from the first generation request to the child's exit. */
  rolloutsPerSecond: number;
}

/** The build is current when dist/cli/main.js is at least as new as everything under src/ (bin/gymnast.js's own rule). */
function buildIsCurrent(): boolean {
  const built = join(ROOT, 'dist', 'cli', 'main.js');
  const sources = join(ROOT, 'src');
  if (!existsSync(built)) return false;
  const newest = Math.max(statSync(sources).mtimeMs, ...readdirSync(sources, { recursive: true }).map((name) => statSync(join(sources, String(name))).mtimeMs));
  return statSync(built).mtimeMs >= newest;
}

/** tsc emits even when it reports errors (someone else's half-done edit in src/): a current dist/ is what counts. */
export async function build(): Promise<void> {
  await run('npm', ['run', 'build', '--silent'], { cwd: ROOT, maxBuffer: 16 << 20 }).catch((error: { stdout?: string }) =>
    process.stderr.write(`collect bench: \`npm run build\` reported errors (measuring what it emitted):\n${String(error.stdout ?? error).slice(0, 2000)}\n`),
  );
  if (!buildIsCurrent()) throw new Error('collect bench: dist/ is still older than src/ after `npm run build`');
}

/** Distinct arithmetic rows `what is i+(i+7)?`, as gymnast's arithmetic agent reads them, after a system prompt when one is given. */
export async function writeRows(path: string, rows: number, system?: string): Promise<void> {
  const file = createWriteStream(path);
  const opening = system === undefined ? [] : [{ role: 'system', content: system }];
  for (let i = 0; i < rows; i++) {
    const input = [...opening, { role: 'user', content: `what is ${i}+${i + 7}?` }];
    const line = `${JSON.stringify({ responses_create_params: { input }, agent_ref: { name: 'arithmetic' }, problem: `${i}+${i + 7}`, answer: 2 * i + 7 })}\n`;
    if (!file.write(line)) await once(file, 'drain');
  }
  file.end();
  await once(file, 'close');
}

const countLines = (path: string) => {
  const text = readFileSync(path);
  let lines = 0;
  for (const byte of text) if (byte === 10) lines++;
  return lines;
};

/** The first-request server in its own process, driven over stdin/stdout (see first-request-server.ts). */
async function startServer() {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./first-request-server.ts', import.meta.url))], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting: { key: string; resolve: (value: Record<string, unknown>) => void }[] = [];
  const early: Record<string, unknown>[] = [];
  let url: string | undefined;
  const gotUrl = new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`collect bench: the test server exited (${code})`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (url === undefined) return resolve((url = line.trim()));
      const message = JSON.parse(line) as Record<string, unknown>;
      const index = waiting.findIndex((wait) => wait.key in message);
      if (index >= 0) waiting.splice(index, 1)[0]!.resolve(message);
      else early.push(message);
    });
  });
  const next = (key: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const index = early.findIndex((message) => key in message);
      if (index >= 0) resolve(early.splice(index, 1)[0]!);
      else waiting.push({ key, resolve });
    });
  return {
    url: await gotUrl,
    /** Watches `pid`: resolves with its CPU at the first generation request and when that arrived. */
    watch(pid: number) {
      child.stdin.write(`watch ${pid}\n`);
      return next('first_request_cpu_s').then((message) => ({ cpuS: message.first_request_cpu_s as number | null, atMs: message.at_ms as number }));
    },
    async count(): Promise<{ turns: number; lastRequestCpuS: number; runPeakRssMb: number }> {
      child.stdin.write('count\n');
      const message = await next('generation_requests');
      return {
        turns: message.generation_requests as number,
        lastRequestCpuS: message.last_request_cpu_s as number,
        runPeakRssMb: message.last_request_hwm_mb as number,
      };
    },
    /** Holds every later generation request `ms` milliseconds (0: answer at once). */
    latency(ms: number) {
      child.stdin.write(`latency ${ms}\n`);
    },
    stop() {
      child.stdin.end();
      child.kill('SIGTERM');
    },
  };
}
type Server = Awaited<ReturnType<typeof startServer>>;

async function runChild(server: Server, command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const first = server.watch(child.pid!);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const exitedAtMs = performance.timeOrigin + performance.now();
  if (code !== 0) throw new Error(`collect bench: ${command} ${args.join(' ')} exited ${code}\n${stderr.slice(-2000)}`);
  const counted = await server.count();
  const request = await first;
  if (request.cpuS === null) throw new Error(`collect bench: could not read the CPU of ${command} at its first request`);
  return { stdout, ...counted, firstRequestCpuS: request.cpuS, seconds: (exitedAtMs - request.atMs) / 1000 };
}

/** `gymnast collect` from dist/, its CPU and peak RSS from its own getrusage at exit. */
async function runGymnast(server: Server, dir: string, input: string, rollouts: number, concurrency: number, tag = ''): Promise<Measured> {
  if (!buildIsCurrent()) await build();
  const output = join(dir, `gymnast${tag}-${concurrency}-${rollouts}.jsonl`);
  const usageFile = join(dir, 'usage.json');
  rmSync(usageFile, { force: true });
  const args = [
    '--import',
    USAGE_PRELOAD,
    BIN,
    'collect',
    '--policy',
    'vllm-completions',
    '--base-url',
    server.url,
    '--model',
    MODEL,
    '--tokenizer',
    qwen3Directory,
    '-i',
    input,
    '-o',
    output,
    '-c',
    String(concurrency),
    '--num-repeats',
    String(REPEATS),
  ];
  const result = await runChild(server, process.execPath, args, { ...process.env, GYMNAST_BENCH_USAGE_FILE: usageFile });
  const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { cpu_s: number; peak_rss_mb: number };
  const written = countLines(output);
  if (written !== rollouts) throw new Error(`collect bench: gymnast wrote ${written} of ${rollouts} rollouts`);
  return {
    rollouts,
    turns: result.turns,
    startupCpuS: result.firstRequestCpuS,
    cpuS: usage.cpu_s,
    peakRssMb: usage.peak_rss_mb,
    lastRequestCpuS: result.lastRequestCpuS,
    runPeakRssMb: result.runPeakRssMb,
    rolloutsPerSecond: rollouts / result.seconds,
  };
}

/** Which HTTP client bench/python-collector.py uses, and the Python that runs it. */
interface PythonClient {
  http: 'stdlib' | 'aiohttp';
  python: string;
}

/** The first Python that imports aiohttp, or undefined (the bench then says how to install it). */
async function findAiohttp(): Promise<PythonClient | undefined> {
  for (const python of PYTHONS) {
    const found = await run(python, ['-c', 'import aiohttp']).then(
      () => true,
      () => false,
    );
    if (found) return { http: 'aiohttp', python };
  }
  return undefined;
}

/** A baseline collector script: what it reports itself (rollouts, turns, CPU at the first request and in all, getrusage's peak RSS). */
interface CollectorReport {
  rollouts: number;
  turns: number;
  startup_cpu_s: number;
  cpu_s: number;
  peak_rss_mb: number;
}

/** bench/python-collector.py or bench/node-collector.mjs: CPU and peak RSS as it reports them, turns as the server counted. */
async function runBaseline(
  server: Server,
  name: string,
  command: string,
  args: string[],
  dir: string,
  input: string,
  rollouts: number,
  concurrency: number,
): Promise<Measured & { ownTurns: number }> {
  const output = join(dir, `${name}-${concurrency}-${rollouts}.jsonl`);
  const result = await runChild(server, command, [...args, server.url, MODEL, input, output, String(concurrency), String(REPEATS)]);
  const report = JSON.parse(result.stdout) as CollectorReport;
  if (report.rollouts !== rollouts || countLines(output) !== rollouts)
    throw new Error(`collect bench: the ${name} collector wrote ${report.rollouts} of ${rollouts} rollouts`);
  return {
    rollouts,
    turns: result.turns,
    ownTurns: report.turns,
    startupCpuS: report.startup_cpu_s,
    cpuS: report.cpu_s,
    peakRssMb: report.peak_rss_mb,
    lastRequestCpuS: result.lastRequestCpuS,
    runPeakRssMb: result.runPeakRssMb,
    rolloutsPerSecond: rollouts / result.seconds,
  };
}

const runPython = (server: Server, client: PythonClient, dir: string, input: string, rollouts: number, concurrency: number) =>
  runBaseline(server, `python-${client.http}`, client.python, [PYTHON_COLLECTOR, '--http', client.http], dir, input, rollouts, concurrency);

/** The same collector in Node (bench/node-collector.mjs): the floor under gymnast on its own runtime, with undici or a hand-written client. */
const runNode = (server: Server, http: 'undici' | 'net', dir: string, input: string, rollouts: number, concurrency: number) =>
  runBaseline(server, `node-${http}`, process.execPath, [NODE_COLLECTOR, '--http', http], dir, input, rollouts, concurrency);

/** CPU of an empty Node process (`node -e ''`, with the same preload): the floor under any CLI's startup. */
async function emptyNodeCpuS(dir: string): Promise<number> {
  const usageFile = join(dir, 'empty-usage.json');
  await run(process.execPath, ['--import', USAGE_PRELOAD, '-e', ''], { env: { ...process.env, GYMNAST_BENCH_USAGE_FILE: usageFile } });
  return (JSON.parse(readFileSync(usageFile, 'utf8')) as { cpu_s: number }).cpu_s;
}

/**
 * Per turn, with the collector's fixed startup removed: `startupCpuS`, what it takes to reach the first
 * request on one row. Reading, checking and planning the input is per-row work, so it stays in.
 */
const perTurnMs = (run: Measured, startupCpuS: number) => ((run.cpuS - startupCpuS) * 1000) / run.turns;
/** Per turn from the first generation request to the last, both read from /proc/PID/stat (10 ms ticks): the end-of-run work left out. */
const runPerTurnMs = (run: Measured) => ((run.lastRequestCpuS - run.startupCpuS) * 1000) / run.turns;
const tailCpuS = (run: Measured) => run.cpuS - run.lastRequestCpuS;

export async function collectOverhead(): Promise<BenchLine[]> {
  await build();
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-bench-collect-'));
  const server = await startServer();
  try {
    const rowsFile = async (rows: number) => {
      const path = join(dir, `rows-${rows}.jsonl`);
      if (!existsSync(path)) await writeRows(path, rows);
      return path;
    };
    const main = await rowsFile(2_000);
    // Startup: the CPU to the first request on a one-row input, so no per-row work is in it.
    const single = await rowsFile(1);
    const stdlib: PythonClient = { http: 'stdlib', python: 'python3' };
    const aiohttp = await findAiohttp();
    const pythonStart = await runPython(server, stdlib, dir, single, REPEATS, 1);
    const aiohttpStart = aiohttp && (await runPython(server, aiohttp, dir, single, REPEATS, 1));
    const gymnastStart = await runGymnast(server, dir, single, REPEATS, 1);
    const undiciStart = await runNode(server, 'undici', dir, single, REPEATS, 1);
    const netStart = await runNode(server, 'net', dir, single, REPEATS, 1);
    const python = await runPython(server, stdlib, dir, main, 8_000, CONCURRENCY);
    const aiohttpRun = aiohttp && (await runPython(server, aiohttp, dir, main, 8_000, CONCURRENCY));
    const gymnast = await runGymnast(server, dir, main, 8_000, CONCURRENCY);
    const undici = await runNode(server, 'undici', dir, main, 8_000, CONCURRENCY);
    const net = await runNode(server, 'net', dir, main, 8_000, CONCURRENCY);
    const wide = await runGymnast(server, dir, main, 8_000, WIDE);
    const aiohttpWide = aiohttp && (await runPython(server, aiohttp, dir, main, 8_000, WIDE));
    const undiciWide = await runNode(server, 'undici', dir, main, 8_000, WIDE);
    const small = await runGymnast(server, dir, await rowsFile(250), 1_000, CONCURRENCY);
    const settled = await runGymnast(server, dir, await rowsFile(2_500), 10_000, CONCURRENCY);
    const large = await runGymnast(server, dir, await rowsFile(25_000), 100_000, CONCURRENCY);
    server.latency(SLOW_SERVER_MS);
    const slow = await runGymnast(server, dir, main, 8_000, CONCURRENCY, '-slow');
    const slowWide = await runGymnast(server, dir, main, 8_000, WIDE, '-slow');
    const aiohttpSlow = aiohttp && (await runPython(server, aiohttp, dir, main, 8_000, CONCURRENCY));
    server.latency(0);
    const emptyNode = await emptyNodeCpuS(dir);
    const scaling = (narrow: Measured, wider: Measured) => wider.rolloutsPerSecond / narrow.rolloutsPerSecond;
    const aiohttpScaling = aiohttpRun && aiohttpWide ? scaling(aiohttpRun, aiohttpWide) : undefined;
    const scalingBaseline =
      aiohttpScaling === undefined
        ? { label: 'Node undici collector', value: scaling(undici, undiciWide) }
        : { label: 'Python aiohttp collector', value: aiohttpScaling };
    const slowVersusAiohttp: BenchResult[] =
      aiohttpSlow && aiohttpStart
        ? [
            {
              name: `collect: client CPU per turn, startup removed, 2,000 rows × ${REPEATS} at concurrency ${CONCURRENCY}, the server taking ${SLOW_SERVER_MS} ms a request: gymnast collect vs the Python aiohttp collector (a server that takes time costs every client more per turn than a zero-latency one: fewer answers per pass of the event loop, and requests that live through more garbage collections)`,
              baseline: { label: 'Python aiohttp collector', value: perTurnMs(aiohttpSlow, aiohttpStart.startupCpuS), unit: 'ms/turn' },
              measured: { label: 'gymnast collect', value: perTurnMs(slow, gymnastStart.startupCpuS), unit: 'ms/turn' },
              lowerIsBetter: true,
            },
          ]
        : [];
    const turns =
      gymnast.turns === python.turns
        ? `${gymnast.turns / gymnast.rollouts} turns a rollout in both`
        : `turns differ: gymnast ${gymnast.turns}, Python ${python.turns} (its own count ${python.ownTurns})`;
    const ms = (value: number) => `${value.toFixed(3)} ms`;
    const gymnastPerTurn = perTurnMs(gymnast, gymnastStart.startupCpuS);
    const versusAiohttp: BenchLine =
      aiohttp && aiohttpStart && aiohttpRun
        ? {
            name: `collect: client CPU per turn, startup removed, 2,000 rows × ${REPEATS} at concurrency ${CONCURRENCY}: gymnast collect vs issue 13's baseline, a Python asyncio + aiohttp collector doing the same (${turns}; target ≤ 0.5×; the issue measured ${ms(ISSUE_AIOHTTP_MS_PER_TURN)}/turn for its aiohttp collector. First to last request only: gymnast ${ms(runPerTurnMs(gymnast))}, aiohttp ${ms(runPerTurnMs(aiohttpRun))}/turn; after the last request gymnast spent ${tailCpuS(gymnast).toFixed(2)} CPU-s, aiohttp ${tailCpuS(aiohttpRun).toFixed(2)})`,
            baseline: { label: 'Python aiohttp collector', value: perTurnMs(aiohttpRun, aiohttpStart.startupCpuS), unit: 'ms/turn' },
            measured: { label: 'gymnast collect', value: gymnastPerTurn, unit: 'ms/turn' },
            lowerIsBetter: true,
          }
        : {
            name: `collect: client CPU per turn, startup removed, 2,000 rows × ${REPEATS} at concurrency ${CONCURRENCY}, against issue 13's target only: no Python here imports aiohttp, so its collector was not run (\`apt-get install python3-aiohttp\` gives Debian's /usr/bin/python3 one); the same-run comparisons follow`,
            measured: { label: 'gymnast collect', value: gymnastPerTurn, unit: 'ms/turn' },
            target: {
              label: "issue 13's target",
              value: 0.5 * ISSUE_AIOHTTP_MS_PER_TURN,
              unit: 'ms/turn',
              source: `half the ${ISSUE_AIOHTTP_MS_PER_TURN} ms/turn issue 13 measured for its aiohttp collector`,
            },
            lowerIsBetter: true,
          };
    return [
      versusAiohttp,
      {
        name: `collect: client CPU per turn, startup removed, same runs: gymnast collect vs the cheapest Python collector (stdlib asyncio with a hand-written keep-alive HTTP/1.1 client; first to last request only: ${ms(runPerTurnMs(python))}/turn; after the last request ${tailCpuS(python).toFixed(2)} CPU-s)`,
        baseline: { label: 'Python stdlib collector', value: perTurnMs(python, pythonStart.startupCpuS), unit: 'ms/turn' },
        measured: { label: 'gymnast collect', value: gymnastPerTurn, unit: 'ms/turn' },
        lowerIsBetter: true,
      },
      {
        name: `collect: client CPU per turn, startup removed, same runs: gymnast collect vs the same collector in Node (bench/node-collector.mjs over undici, gymnast's HTTP client): what gymnast's template, tokens, checks and rows cost on top of its runtime (first to last request only: ${ms(runPerTurnMs(undici))}/turn; with a hand-written node:net client ${ms(perTurnMs(net, netStart.startupCpuS))}/turn${aiohttpRun && aiohttpStart ? `, which is ${(perTurnMs(net, netStart.startupCpuS) / perTurnMs(aiohttpRun, aiohttpStart.startupCpuS)).toFixed(2)}× the aiohttp collector: issue 13's 0.5× leaves gymnast ${ms(0.5 * perTurnMs(aiohttpRun, aiohttpStart.startupCpuS))}/turn in all` : ''})`,
        baseline: { label: 'Node undici collector', value: perTurnMs(undici, undiciStart.startupCpuS), unit: 'ms/turn' },
        measured: { label: 'gymnast collect', value: gymnastPerTurn, unit: 'ms/turn' },
        lowerIsBetter: true,
      },
      {
        name: `collect: client CPU from process start to the first generation request on a one-row input, gymnast collect vs the Python stdlib collector (node -e '' ${emptyNode.toFixed(3)} CPU-s; on the 2,000-row input, checked and planned first: gymnast ${gymnast.startupCpuS.toFixed(3)} CPU-s)`,
        baseline: { label: 'Python stdlib collector', value: pythonStart.startupCpuS, unit: 'CPU-s' },
        measured: { label: 'gymnast collect', value: gymnastStart.startupCpuS, unit: 'CPU-s' },
        target: { label: 'target', value: STARTUP_TARGET_CPU_S, unit: 'CPU-s', source: "issue 13's goal" },
        lowerIsBetter: true,
      },
      {
        name: `collect: peak RSS of gymnast collect at concurrency ${CONCURRENCY}, 100,000 rollouts vs 1,000 (25,000 rows × ${REPEATS} vs 250 × ${REPEATS}; target ≤ 1.2×; peak up to the last generation request, before the end-of-run work: ${large.runPeakRssMb.toFixed(0)} MB vs ${small.runPeakRssMb.toFixed(0)} MB)`,
        baseline: { label: '1,000 rollouts', value: small.peakRssMb, unit: 'MB' },
        measured: { label: '100,000 rollouts', value: large.peakRssMb, unit: 'MB' },
        lowerIsBetter: true,
      },
      {
        name: `collect: peak RSS of gymnast collect at concurrency ${CONCURRENCY}, 100,000 rollouts vs 10,000 (25,000 rows × ${REPEATS} vs 2,500 × ${REPEATS}): growth once V8 has sized its heap for the run, which a 1,000-rollout run ends before doing (up to the last generation request: ${large.runPeakRssMb.toFixed(0)} MB vs ${settled.runPeakRssMb.toFixed(0)} MB)`,
        baseline: { label: '10,000 rollouts', value: settled.peakRssMb, unit: 'MB' },
        measured: { label: '100,000 rollouts', value: large.peakRssMb, unit: 'MB' },
        lowerIsBetter: true,
      },
      {
        name: `collect: peak RSS, 8,000 rollouts at concurrency ${CONCURRENCY}: gymnast collect vs the Python ${aiohttpRun ? 'aiohttp' : 'stdlib'} collector (issue 13: 444 MB vs 68 MB with aiohttp)`,
        baseline: { label: `Python ${aiohttpRun ? 'aiohttp' : 'stdlib'} collector`, value: (aiohttpRun || python).peakRssMb, unit: 'MB' },
        measured: { label: 'gymnast collect', value: gymnast.peakRssMb, unit: 'MB' },
        lowerIsBetter: true,
      },
      {
        name: `collect: gymnast collect rollouts/s (first generation request to exit, wall time), concurrency 1,024 vs ${CONCURRENCY}, 8,000 rollouts (target > 1×; 100,000-rollout run: ${large.rolloutsPerSecond.toFixed(0)}/s, ${perTurnMs(large, gymnastStart.startupCpuS).toFixed(3)} ms CPU/turn)`,
        baseline: { label: `concurrency ${CONCURRENCY}`, value: gymnast.rolloutsPerSecond, unit: 'rollouts/s' },
        measured: { label: 'concurrency 1,024', value: wide.rolloutsPerSecond, unit: 'rollouts/s' },
        lowerIsBetter: false,
      },
      {
        name: `collect: how rollouts/s scale from concurrency ${CONCURRENCY} to 1,024 on the zero-latency server, gymnast collect against the ${scalingBaseline.label} in the same run (each collector's 1,024-vs-${CONCURRENCY} ratio; > 1× scales better; Node undici collector ${scaling(undici, undiciWide).toFixed(2)}×${aiohttpScaling === undefined ? '' : `, aiohttp ${aiohttpScaling.toFixed(2)}×`}, gymnast ${scaling(gymnast, wide).toFixed(2)}×: with client and server sharing 2 cores, more requests in flight cost every client more than they save)`,
        baseline: { ...scalingBaseline, unit: '×' },
        measured: { label: 'gymnast collect', value: scaling(gymnast, wide), unit: '×' },
        lowerIsBetter: false,
      },
      {
        name: `collect: gymnast collect rollouts/s, concurrency 1,024 vs ${CONCURRENCY}, 8,000 rollouts, the server taking ${SLOW_SERVER_MS} ms a request (> 1× when concurrency pays; CPU per turn ${perTurnMs(slowWide, gymnastStart.startupCpuS).toFixed(3)} ms at 1,024, ${perTurnMs(slow, gymnastStart.startupCpuS).toFixed(3)} ms at ${CONCURRENCY})`,
        baseline: { label: `concurrency ${CONCURRENCY}`, value: slow.rolloutsPerSecond, unit: 'rollouts/s' },
        measured: { label: 'concurrency 1,024', value: slowWide.rolloutsPerSecond, unit: 'rollouts/s' },
        lowerIsBetter: false,
      },
      ...slowVersusAiohttp,
    ];
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
