import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { adjustConcurrency, checkReplicaMetrics } from '../../src/collect/auto-concurrency.js';
import { ConcurrencyController } from '../../src/collect/concurrency-controller.js';
import { SamplingParams } from '../../src/core/index.js';
import { ConcurrencyLimit, runJobs } from '../../src/engine/index.js';
import { JsonClient } from '../../src/http-client/json-client.js';
import { readVllmLoad, VLLM_LOAD_METRICS } from '../../src/http-client/vllm-load.js';
import { RemotePolicy, vllmCompletionsBackend } from '../../src/policy/index.js';
import { type Outage, SimFleetClient, type SimStep, startSimFleet, VirtualClock } from '../../src/testing/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';
import { profileWith } from '../support/sim-engine.js';

const tokenizer = { tokenizer: await qwen3Tokenizer(), template: await qwen3Template(), source: 'Qwen3' };
const closing: (() => Promise<void>)[] = [];
after(() => Promise.all(closing.map((close) => close())));

/** Replicas with a small KV cache (24,000 tokens): about 16 requests of 1,000 prompt tokens and their replies fill one. */
const smallKv = profileWith({ numGpuBlocks: 1500 }, { outputLength: { median: 256, sigma: 0.5 } });

/** A fleet on a virtual clock, gymnast's policy over it in this process, and each replica's tokens decoded per simulated second. */
async function fleet(replicas: number, outages: Outage[] = []) {
  const clock = new VirtualClock();
  const decoded: number[][] = Array.from({ length: replicas }, () => []);
  const onStep = (step: SimStep) => {
    const perSecond = decoded[step.replica]!;
    const second = Math.floor(step.end);
    while (perSecond.length <= second) perSecond.push(0);
    perSecond[second]! += step.decodeTokens;
  };
  const sim = await startSimFleet({ replicas, clock, tokenizer, profile: smallKv, seed: 3, onStep, outages });
  const client = new SimFleetClient(sim.fleet);
  const policy = new RemotePolicy({
    backend: vllmCompletionsBackend,
    urls: sim.urls,
    tokenizer: tokenizer.tokenizer,
    client,
    model: sim.fleet.modelName,
    maxModelLen: smallKv.maxModelLen,
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
    health: { intervalMs: 5 },
  });
  closing.push(async () => {
    await policy.close();
    await sim.close();
  });
  return { clock, sim, client, policy, decoded };
}

type Fleet = Awaited<ReturnType<typeof fleet>>;

/** A prompt of 1,000 ids of its own. */
const prompt = (request: number) => Array.from({ length: 1000 }, (_, k) => 1000 + ((request * 7919 + k * 31) % 60_000));

/**
 * `rollouts` one-turn rollouts through the scheduler under `--concurrency auto` (the controller polling
 * every simulated second), or at a fixed concurrency; what the fleet did, and the limit at each poll.
 */
async function run(target: Fleet, rollouts: number, concurrency: number | 'auto') {
  const signal = new AbortController().signal;
  const controller = new ConcurrencyController({ initial: 4, min: 1, max: 1024 });
  const limit = concurrency === 'auto' ? new ConcurrencyLimit(controller.limit) : undefined;
  const stop = new AbortController();
  const limits: { at: number; limit: number }[] = [];
  const polling = limit
    ? adjustConcurrency({
        urls: target.sim.urls,
        client: target.client,
        controller,
        limit,
        intervalMs: 1000,
        signal: stop.signal,
        sleep: (ms, wait) => target.clock.sleepUntil(target.clock.now() + ms / 1000, wait),
        onPoll: (current) => limits.push({ at: target.clock.now(), limit: current }),
      })
    : Promise.resolve();
  const sampling = SamplingParams.parse({ max_tokens: 1024, seed: 1 });
  await runJobs(
    Array.from({ length: rollouts }, (_, i) => i),
    { schedule: { kind: 'async', concurrency: concurrency === 'auto' ? 1024 : concurrency }, ...(limit ? { limit } : {}) },
    async (i) => {
      await target.policy.generate({ session_id: `r${i}`, prompt_token_ids: prompt(i), messages: [], sampling, stop_strings: [], stop_token_ids: [] }, signal);
    },
  );
  stop.abort();
  await polling;
  const reports = target.sim.reports();
  const total = (key: 'preemptions' | 'requestsSubmitted' | 'generationTokens') => reports.reduce((sum, report) => sum + report[key], 0);
  return { limits, preemptions: total('preemptions'), requests: total('requestsSubmitted'), tokensPerSecond: total('generationTokens') / target.clock.now() };
}

/** Tokens the `replicas` decoded a second, over simulated seconds [from, to). */
function rate(decoded: number[][], replicas: readonly number[], from: number, to: number): number {
  let sum = 0;
  for (const replica of replicas) for (let second = from; second < to; second++) sum += decoded[replica]![second] ?? 0;
  return sum / (to - from);
}

describe('--concurrency auto against the simulated fleet', () => {
  it("reads vLLM's own metric names: what it reads of a replica's /metrics is the replica's own account", async () => {
    assert.deepEqual(VLLM_LOAD_METRICS, {
      running: ['vllm:num_requests_running'],
      waiting: ['vllm:num_requests_waiting'],
      kvCacheUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'],
      preemptions: ['vllm:num_preemptions_total'],
      generationTokens: ['vllm:generation_tokens_total'],
    });
    const sim = await startSimFleet({ replicas: 1, timeScale: 100, tokenizer, profile: smallKv });
    const client = new JsonClient();
    closing.push(async () => {
      await client.close();
      await sim.close();
    });
    const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: sim.urls, tokenizer: tokenizer.tokenizer, client });
    const sampling = SamplingParams.parse({ max_tokens: 512, seed: 1 });
    const generating = Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        policy.generate(
          { session_id: `s${i}`, prompt_token_ids: prompt(i), messages: [], sampling, stop_strings: [], stop_token_ids: [] },
          new AbortController().signal,
        ),
      ),
    );
    const arrived = () => sim.reports()[0]!.requestsSubmitted === 40 && sim.reports()[0]!.generationTokens > 0;
    while (!arrived()) await new Promise((resolve) => setTimeout(resolve, 1));
    // Held still while both are read: the metrics and the replica's own account describe one moment.
    const engine = sim.fleet.replicas[0]!.engine;
    await engine.pause('keep', false);
    const load = await readVllmLoad(client, sim.urls[0]!, { timeoutMs: 5000 });
    const [report] = sim.reports();
    engine.resume();
    await generating;
    assert.deepEqual(load, {
      running: report!.running,
      waiting: report!.waiting,
      kvCacheUsage: report!.kvCacheUsage,
      preemptions: report!.preemptions,
      generationTokens: report!.generationTokens,
    });
    assert.ok(load.running > 0 && load.kvCacheUsage > 0 && load.generationTokens > 0, `read mid-run: ${JSON.stringify(load)}`);
    await policy.close();
  });

  it("refuses, before a run, servers whose /metrics are not vLLM's", async () => {
    const server = createServer((_, response) => response.end('# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs 3\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closing.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [url], tokenizer: tokenizer.tokenizer });
    await assert.rejects(
      checkReplicaMetrics(policy),
      (error: Error & { kind?: string }) => error.kind === 'config' && /serves no vllm:.*reads a vLLM server's metrics/.test(error.message),
    );
    await policy.close();
  });

  it('fills the KV caches from a low start, with no more preemptions than 1% of the requests', async () => {
    const auto = await run(await fleet(2), 400, 'auto');
    // A sweep on this fleet: 32 in flight is the most that does not preempt; 40 preempts a request in six.
    const most = await run(await fleet(2), 400, 32);
    const tooMany = await run(await fleet(2), 400, 40);
    assert.equal(most.preemptions, 0);
    assert.ok(tooMany.preemptions > 0.1 * tooMany.requests, `40 in flight preempted ${tooMany.preemptions} of ${tooMany.requests}`);
    assert.ok(auto.preemptions <= 0.01 * auto.requests, `auto preempted ${auto.preemptions} of ${auto.requests} requests`);
    const settled = auto.limits.slice(2, 20).map(({ limit }) => limit);
    assert.ok(
      settled.every((limit) => limit >= 30 && limit <= 44),
      `from 4, it settles near what the two caches hold: ${settled.join(', ')}`,
    );
    assert.ok(auto.tokensPerSecond >= most.tokensPerSecond, `auto ${auto.tokensPerSecond} tokens/s, 32 in flight ${most.tokensPerSecond}`);
  });

  it('keeps the replica left as busy within 10 simulated seconds after the other drops out', async () => {
    const dropped = await fleet(2, [{ replica: 0, at: 12, duration: 30 }]);
    const { limits } = await run(dropped, 450, 'auto');
    assert.ok(rate(dropped.decoded, [1], 22, 29) >= 0.9 * rate(dropped.decoded, [1], 5, 12), 'it decodes as much as before, 10 s after');
    const at = (time: number) => limits.find((poll) => poll.at >= time)!.limit;
    assert.ok(at(22) < 0.75 * at(11), `the concurrency follows the one cache left: ${at(11)} before, ${at(22)} after`);
  });

  it('keeps the replica serving as busy within 10 simulated seconds after the other pauses, counting the requests held', async () => {
    const paused = await fleet(2);
    void paused.clock.sleepUntil(12).then(() => paused.sim.fleet.replicas[0]!.engine.pause('keep'));
    void paused.clock.sleepUntil(40).then(() => paused.sim.fleet.replicas[0]!.engine.resume());
    const { limits } = await run(paused, 450, 'auto');
    assert.ok(rate(paused.decoded, [1], 22, 29) >= 0.9 * rate(paused.decoded, [1], 5, 12), 'it decodes as much as before, 10 s after');
    const at = (time: number) => limits.find((poll) => poll.at >= time)!.limit;
    assert.ok(at(22) >= 0.9 * at(11), `the requests the paused replica holds are not taken for a full cache: ${at(11)} before, ${at(22)} after`);
  });
});
