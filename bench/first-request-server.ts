import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import { InferenceServer, type RecordedRequest } from '../src/testing/index.js';
import { abortableDelay } from '../src/util/abortable-delay.js';
import { JinjaChatTemplate, loadHfTokenizer } from '../src/tokens/index.js';
import { qwen3Directory } from '../test/support/qwen3.js';
import { cpuSecondsOf } from './process-cpu.js';

/**
 * The test inference server (Qwen3 tokenizer, zero latency unless told, answering `ok`) in its own process, for
 * benchmarks of a collector in another process. Prints its URL, then takes commands on stdin, one a line:
 * - `watch PID`: start counting generation requests from zero, and on the first one read
 *   /proc/PID/stat (the collector's utime + stime) before answering it, printing
 *   `{"first_request_cpu_s": …}`: the collector's CPU from its start to its first generation request,
 *   taken while that request is in the server's hands;
 * - `count`: print `{"generation_requests": n, "last_request_cpu_s": …, "last_request_hwm_mb": …}`: the
 *   generation requests since `watch`, and the collector's CPU at the last of them and its peak RSS
 *   (VmHWM, read every 64th request) so far: what it spent running rollouts, before its
 *   end-of-run work (aggregation, health checks).
 * - `latency MS`: hold every later generation request MS milliseconds before answering it (0: none), a
 *   server that takes time to generate, for runs where concurrency should pay.
 * Requests are counted, not recorded (the InferenceServer's log would grow with a 100,000-rollout run).
 */
const GENERATION_PATHS = new Set(['/v1/completions', '/v1/chat/completions', '/v1/responses', '/generate']);
/** Peak RSS so far (VmHWM) in MB. */
function peakRssMbOf(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** A reading of the watched process, or null when it is gone (or another process sent the request). */
function read<T>(pid: number, reading: (pid: number) => T): T | null {
  try {
    return reading(pid);
  } catch {
    return null;
  }
}

/** What the server counts of the collector's generation requests, and how long it holds them. */
class RequestCounter {
  watched: number | undefined;
  generationRequests = 0;
  lastCpuS: number | null = null;
  lastHwmMb: number | null = null;
  latencyMs = 0;

  async see(call: RecordedRequest, request: IncomingMessage, signal: AbortSignal): Promise<void> {
    if (request.method !== 'POST' || !GENERATION_PATHS.has(call.path)) return;
    this.generationRequests++;
    if (this.watched !== undefined) {
      this.lastCpuS = read(this.watched, cpuSecondsOf);
      if (this.generationRequests % 64 === 1) this.lastHwmMb = read(this.watched, peakRssMbOf);
      if (this.generationRequests === 1)
        process.stdout.write(`${JSON.stringify({ first_request_cpu_s: this.lastCpuS, at_ms: performance.timeOrigin + performance.now() })}\n`);
    }
    if (this.latencyMs > 0) await abortableDelay(this.latencyMs, signal);
  }
}

const tokenizer = await loadHfTokenizer(qwen3Directory);
const counter = new RequestCounter();
const server = new InferenceServer({
  tokenizer,
  template: JinjaChatTemplate.fromConfig(tokenizer.config),
  respond: () => 'ok',
  recordRequests: false,
  onRequest: (call, request, signal) => counter.see(call, request, signal),
});
process.stdout.write(`${await server.start()}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, argument] = line.trim().split(/\s+/);
  if (command === 'watch') {
    counter.watched = Number(argument);
    counter.generationRequests = 0;
    counter.lastCpuS = counter.lastHwmMb = null;
  } else if (command === 'latency') {
    counter.latencyMs = Number(argument);
  } else if (command === 'count') {
    process.stdout.write(
      `${JSON.stringify({ generation_requests: counter.generationRequests, last_request_cpu_s: counter.lastCpuS, last_request_hwm_mb: counter.lastHwmMb })}\n`,
    );
  }
});
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
