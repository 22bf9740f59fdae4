import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReplyPlanner } from '../../src/servers/sim/reply-planner.js';
import type { SimEngine, SimStep } from '../../src/servers/sim/sim-engine.js';
import type { SimRequest } from '../../src/servers/sim/sim-request.js';
import { createSeededRandom } from '../../src/util/seeded-random.js';
import { qwen3Tokenizer } from '../support/qwen3.js';
import { finished, ids, profileWith, virtualEngine } from '../support/sim-engine.js';

/** A KV cache of 64 blocks (1,024 tokens) for requests of up to 512: preemption is certain. */
const tight = profileWith({ numGpuBlocks: 64, maxNumSeqs: 16, maxNumBatchedTokens: 256 }, { maxModelLen: 512 });

interface Planned {
  at: number;
  prompt: number[];
  reply: number[];
}

/** 60 requests of seeded lengths arriving over two simulated seconds, some sharing a prefix. */
function workload(seed: number): Planned[] {
  const random = createSeededRandom(seed);
  const shared = ids(64, 7000);
  return Array.from({ length: 60 }, (_, i) => {
    const own = ids(random.int(10, 250), 100_000 + i * 1000);
    return { at: random.next() * 2, prompt: random.next() < 0.5 ? [...shared, ...own] : own, reply: ids(random.int(1, 200), 500_000 + i * 1000) };
  }).sort((a, b) => a.at - b.at);
}

/** Runs the workload on the tight profile, calling `check` after every step; returns the steps and the requests. */
async function run(planned: Planned[], check: (engine: SimEngine, requests: readonly SimRequest[]) => void = () => undefined) {
  const steps: SimStep[] = [];
  const requests: SimRequest[] = [];
  const { engine, clock } = virtualEngine(tight, {
    onStep: (step, engine) => {
      steps.push(step);
      check(engine, requests);
    },
  });
  for (const { at, prompt, reply } of planned) {
    await clock.sleepUntil(at);
    requests.push(engine.submit(prompt, { ids: reply, finish: 'stop', seed: 0 }));
  }
  await Promise.all(requests.map(finished));
  return { steps, requests, engine };
}

describe('simulated engine: conservation and determinism', () => {
  it('on every step, KV blocks used + free = total, and every request is waiting, running or finished exactly once', async () => {
    let checked = 0;
    const { requests, engine } = await run(workload(1), (engine, requests) => {
      const audit = engine.pool.audit();
      assert.equal(audit.referenced + audit.freeListed, tight.engine.numGpuBlocks, 'blocks in use + free blocks');
      assert.equal(audit.freeListed, engine.pool.freeBlocks);
      const held = engine.running.reduce((sum, request) => sum + request.blocks.length, 0);
      assert.equal(audit.references, held, 'references = the blocks running requests hold');
      assert.ok(
        engine.waiting.every((request) => request.blocks.length === 0),
        'a waiting request holds no blocks',
      );
      const waiting = new Set(engine.waiting);
      const running = new Set(engine.running);
      for (const request of requests) {
        const places = [waiting.has(request), running.has(request), request.status === 'finished'].filter(Boolean).length;
        assert.equal(places, 1, `request ${request.id} (${request.status}) is in ${places} places`);
        assert.equal(waiting.has(request), request.status === 'waiting');
      }
      assert.ok(engine.running.length <= tight.engine.maxNumSeqs);
      checked++;
    });
    assert.ok(checked > 1000, `${checked} steps checked`);
    assert.ok(engine.accounting.preemptions > 0, 'the workload preempts');
    assert.equal(engine.accounting.requestsEnded.stop, requests.length);
    assert.equal(engine.pool.audit().referenced, 0, 'every block is free at the end');
  });

  it('a preempted request recomputes its KV and still says exactly its planned reply', async () => {
    const planned = workload(2);
    const { requests } = await run(planned);
    assert.ok(requests.some((request) => request.preemptions > 0));
    for (const [i, request] of requests.entries()) assert.deepEqual(request.tokens, [...planned[i]!.prompt, ...planned[i]!.reply]);
  });

  it('the same workload runs step for step alike, and another seed runs otherwise', async () => {
    const first = await run(workload(3));
    const again = await run(workload(3));
    assert.deepEqual(again.steps, first.steps);
    assert.deepEqual(
      again.requests.map((request) => [request.firstTokenAt, request.lastTokenAt, request.preemptions]),
      first.requests.map((request) => [request.firstTokenAt, request.lastTokenAt, request.preemptions]),
    );
    const other = await run(workload(4));
    assert.notDeepEqual(other.steps, first.steps);
  });

  it('replies are planned from the seed: the same seed gives the same ids and lengths, another seed others, all long-tailed and capped by max_tokens', async () => {
    const tokenizer = await qwen3Tokenizer();
    const profile = profileWith();
    const plan = (seed: number) => {
      const planner = new ReplyPlanner({ tokenizer, outputLength: profile.outputLength, seed });
      return Array.from({ length: 400 }, (_, i) => planner.plan({ promptIds: ids(20, i * 100), maxTokens: 4096, seed: i, temperature: 1 }));
    };
    const replies = plan(7);
    assert.deepEqual(plan(7), replies);
    assert.notDeepEqual(
      plan(8).map((reply) => reply.ids.length),
      replies.map((reply) => reply.ids.length),
    );
    const lengths = replies.map((reply) => reply.ids.length).sort((a, b) => a - b);
    const median = lengths[200]!;
    assert.ok(median > 400 && median < 650, `median ${median}, profile ${profile.outputLength.median}`);
    assert.ok(lengths.at(-4)! > 4 * median, `p99 ${lengths.at(-4)} is more than four times the median: long-tailed`);
    for (const reply of replies) {
      if (reply.finish === 'stop') assert.equal(reply.ids.at(-1), tokenizer.stopTokenIds[0]);
      else assert.equal(reply.ids.length, 4096);
      assert.ok(reply.ids.slice(0, -1).every((id) => !tokenizer.stopTokenIds.includes(id)));
    }
    const capped = new ReplyPlanner({ tokenizer, outputLength: profile.outputLength, seed: 7 }).plan({
      promptIds: ids(20),
      maxTokens: 3,
      seed: 1,
      temperature: 1,
    });
    assert.deepEqual([capped.ids.length, capped.finish], [3, 'length']);
  });
});
