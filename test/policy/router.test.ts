import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { EpisodeRecord } from '../../src/core/index.js';
import { runEpisode, runGroups } from '../../src/engine/index.js';
import { backoffDelay, RemotePolicy, vllmCompletionsBackend, type Policy, type RouterEvent } from '../../src/policy/index.js';
import type { InferenceServer } from '../../src/testing/index.js';
import { addTask, startServers, toolEpisodeOptions } from '../support/loopback-model.js';
import { qwen3Tokenizer } from '../support/qwen3.js';
import { within } from '../support/within.js';

const started: InferenceServer[] = [];
const policies: Policy[] = [];
after(async () => {
  // Servers first: they let go of a request a broken spec left hanging, which a policy's close waits for.
  await Promise.all(started.map((server) => server.close().catch(() => {})));
  await Promise.all(policies.map((policy) => policy.close()));
});

async function setup(replicas: number, options: Partial<Omit<ConstructorParameters<typeof RemotePolicy>[0], 'tokenizer'>> = {}) {
  const servers = await startServers(replicas);
  started.push(...servers);
  const events: RouterEvent[] = [];
  const onEvent = (event: RouterEvent) => events.push(event);
  const policy = new RemotePolicy({
    backend: vllmCompletionsBackend,
    urls: servers.map((server) => server.url),
    tokenizer: await qwen3Tokenizer(),
    model: 'm',
    maxModelLen: 8192,
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    onEvent,
    ...options,
  });
  policies.push(policy);
  return { servers, policy, events };
}

const completionCalls = (server: InferenceServer) => server.requests.filter((request) => request.path === '/v1/completions');

describe('the router', () => {
  it('retries 429 and 5xx with backoff until the request succeeds', async () => {
    const { servers, policy, events } = await setup(1);
    servers[0]!.faults.inject({ kind: 'status', status: 503 }, 2);
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.equal(record.record_type, 'rollout');
    assert.equal(events.filter((event) => event.type === 'retry').length, 2);
  });

  it('waits at least as long as Retry-After says', async () => {
    const { servers, policy, events } = await setup(1);
    servers[0]!.faults.inject({ kind: 'status', status: 429, retryAfterSeconds: 0.3 });
    const started = performance.now();
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.equal(record.record_type, 'rollout');
    assert.ok(
      events.some((event) => event.type === 'retry' && event.delayMs >= 300),
      "the wait chosen is the server's, not the 5 ms backoff",
    );
    // A lower bound: a loaded machine only makes the wait longer.
    assert.ok(performance.now() - started >= 300, 'and it was waited');
  });

  it('stops retrying at its budget and fails the episode with the last error', async () => {
    const { servers, policy } = await setup(1, { retry: { maxAttempts: 3, baseDelayMs: 1 } });
    servers[0]!.faults.inject({ kind: 'status', status: 500 }, 10);
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.equal(record.record_type === 'failure' && record.failure_class, 'policy-error');
    assert.match(record.termination.detail ?? '', /HTTP 500/);
    assert.equal(completionCalls(servers[0]!).length, 3);
  });

  it('gives a hung request its deadline, then retries it', async () => {
    // 1 s: a healthy request on a loaded machine stays well inside it; the hung one never answers.
    const { servers, policy, events } = await setup(1, { requestTimeoutMs: 1_000 });
    servers[0]!.faults.inject({ kind: 'hang' });
    const record = await within(runEpisode(addTask(0), 0, await toolEpisodeOptions(policy)), 20_000, 'the episode with a hung request');
    assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
    const [first] = events;
    assert.equal(first?.type === 'retry' && first.error, `${servers[0]!.url}/v1/completions: no answer within 1000 ms`);
  });

  it('fails with a timeout when every attempt hangs', async () => {
    const { servers, policy, events } = await setup(1, { requestTimeoutMs: 50, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    servers[0]!.faults.inject({ kind: 'hang' }, 2);
    const record = await within(runEpisode(addTask(0), 0, await toolEpisodeOptions(policy)), 20_000, 'the episode whose requests all hang');
    assert.equal(record.record_type === 'failure' && record.failure_class, 'timeout');
    // Counted by the router, not the server: on a loaded machine a request may pass 50 ms before it arrives.
    assert.deepEqual(
      events.map((event) => event.type),
      ['retry'],
    );
  });

  it('treats a connection reset or a truncated body as a transport error and retries it', async () => {
    const { servers, policy } = await setup(1, { health: { intervalMs: 20 } });
    servers[0]!.faults.inject({ kind: 'reset' });
    servers[0]!.faults.inject({ kind: 'truncate' });
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.equal(record.record_type, 'rollout');
  });

  it('keeps each episode on one of 3 replicas and spreads new episodes by requests in flight', async () => {
    // Every task here has the same prompt: without group placement, so they are placed as distinct prompts are.
    const { servers, policy } = await setup(3, { groupPlacement: false });
    const options = await toolEpisodeOptions(policy);
    const records: EpisodeRecord[] = [];
    const tasks = Array.from({ length: 6 }, (_, i) => addTask(i));
    for await (const group of runGroups(tasks, options, { groupSize: 2, schedule: { kind: 'async', concurrency: 12 } })) records.push(...group.records);
    assert.ok(records.every((record) => record.record_type === 'rollout'));

    const replicaOf = new Map<string, Set<number>>();
    servers.forEach((server, index) =>
      completionCalls(server).forEach((call) => replicaOf.set(call.sessionId!, (replicaOf.get(call.sessionId!) ?? new Set()).add(index))),
    );
    assert.equal(replicaOf.size, 12);
    assert.ok(
      [...replicaOf.values()].every((replicas) => replicas.size === 1),
      'every session stays on one replica',
    );
    const perReplica = servers.map((server) => new Set(completionCalls(server).map((call) => call.sessionId)).size);
    assert.deepEqual(perReplica, [4, 4, 4]);
  });

  it('keeps a pin only while its episode runs, and none for a single replica: pins follow the episodes in flight, not the run', async () => {
    for (const [replicas, expectPins] of [
      [3, true],
      [1, false],
    ] as const) {
      const { policy } = await setup(replicas);
      const remote = policy as RemotePolicy<unknown>;
      let mostPinned = 0;
      const options = await toolEpisodeOptions(policy, { onEvent: () => (mostPinned = Math.max(mostPinned, remote.router.pinnedSessions)) });
      const tasks = Array.from({ length: 8 }, (_, i) => addTask(i));
      let records = 0;
      for await (const group of runGroups(tasks, options, { groupSize: 2, schedule: { kind: 'async', concurrency: 4 } })) records += group.records.length;
      assert.equal(records, 16);
      assert.equal(remote.router.pinnedSessions, 0, `${replicas} replicas: every pin is let go once its episode ends`);
      if (expectPins) assert.ok(mostPinned > 0 && mostPinned <= 4, `3 replicas: at most one pin per episode in flight, saw ${mostPinned}`);
      else assert.equal(mostPinned, 0, 'one replica: nothing to pin');
    }
  });

  it('takes a server named with /v1 and a query (`…/v1?api-version=1`) and tells of its retries with its credentials masked', async () => {
    const [server] = await startServers(1);
    started.push(server!);
    const events: RouterEvent[] = [];
    const url = `${server!.url.replace('http://', 'http://user:SECRET@')}/v1?api-version=1&api_key=SECRET`;
    const policy = new RemotePolicy({
      backend: vllmCompletionsBackend,
      urls: [url],
      tokenizer: await qwen3Tokenizer(),
      model: 'm',
      maxModelLen: 8192,
      retry: { baseDelayMs: 5, maxDelayMs: 50 },
      onEvent: (event) => events.push(event),
    });
    policies.push(policy);
    server!.faults.inject({ kind: 'status', status: 503 });
    const record = await runEpisode(addTask(0), 0, await toolEpisodeOptions(policy));
    assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
    assert.deepEqual(new Set(completionCalls(server!).map((call) => call.path)), new Set(['/v1/completions']));
    assert.deepEqual(events, [
      {
        type: 'retry',
        url: `${server!.url.replace('http://', 'http://***@')}?api-version=1&api_key=***`,
        attempt: 1,
        delayMs: events[0]?.type === 'retry' ? events[0].delayMs : 0,
        error: `${server!.url.replace('http://', 'http://***@')}/v1/completions?api-version=1&api_key=***: HTTP 503: injected 503`,
      },
    ]);
  });

  it('fails over when a replica dies mid-run: its episodes move, none fail, and it is evicted', async () => {
    // Spread over every replica (the tasks share one prompt, which group placement would keep on one).
    const { servers, policy, events } = await setup(3, { groupPlacement: false });
    const options = await toolEpisodeOptions(policy);
    let killed = false;
    const dead = servers[1]!.url;
    const records: EpisodeRecord[] = [];
    const tasks = Array.from({ length: 6 }, (_, i) => addTask(i));
    const onEvent = (event: { type: string }) => {
      if (event.type === 'turn-end' && !killed) {
        killed = true;
        void servers[1]!.close();
      }
    };
    for await (const group of runGroups(tasks, { ...options, onEvent }, { groupSize: 2, schedule: { kind: 'async', concurrency: 12 } }))
      records.push(...group.records);
    assert.equal(records.length, 12);
    assert.deepEqual(
      records.filter((record) => record.record_type === 'failure'),
      [],
    );
    assert.ok(events.some((event) => event.type === 'replica-evicted' && event.url === dead));
  });

  it('re-admits an evicted replica once its health probe answers again', async () => {
    const { servers, policy, events } = await setup(2, { health: { intervalMs: 60_000 } });
    const url = servers[0]!.url;
    const port = Number(new URL(url).port);
    await servers[0]!.close();
    const options = await toolEpisodeOptions(policy);
    const record = await runEpisode(addTask(0), 0, options);
    assert.equal(record.record_type, 'rollout');
    assert.equal(policy.router.replicas.find((replica) => replica.url === url)!.healthy, false);

    const [revived] = await startServers(1, { port });
    started.push(revived!);
    await policy.router.probeEvicted();
    assert.equal(policy.router.replicas.find((replica) => replica.url === url)!.healthy, true);
    assert.ok(events.some((event) => event.type === 'replica-readmitted' && event.url === url));
  });

  it('stops retrying at the shared retry budget when a server fails for everyone', async () => {
    const { servers, policy, events } = await setup(1, { retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 2 }, retryBudget: { ratio: 0.2, reserve: 3 } });
    servers[0]!.faults.inject({ kind: 'status', status: 503 }, 1_000);
    const options = await toolEpisodeOptions(policy);
    const records: EpisodeRecord[] = [];
    const tasks = Array.from({ length: 20 }, (_, i) => addTask(i));
    for await (const group of runGroups(tasks, options, { groupSize: 1, schedule: { kind: 'async', concurrency: 20 } })) records.push(...group.records);
    assert.ok(records.every((record) => record.record_type === 'failure'));
    const retries = events.filter((event) => event.type === 'retry').length;
    assert.ok(retries <= 3 + 0.2 * 20, `${retries} retries for 20 requests`);
    assert.ok(events.some((event) => event.type === 'retry-budget-exhausted'));
    assert.ok(completionCalls(servers[0]!).length < 20 * 5);
  });

  it('backs off exponentially with jitter, capped, and never below Retry-After', () => {
    const options = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000 };
    assert.equal(
      backoffDelay(1, options, () => 0),
      50,
    );
    assert.equal(
      backoffDelay(3, options, () => 1),
      400,
    );
    assert.equal(
      backoffDelay(10, options, () => 1),
      1_000,
    );
    assert.equal(
      backoffDelay(1, options, () => 0, 700),
      700,
    );
  });
});
