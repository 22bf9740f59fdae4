import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { runEpisode, runJobs } from '../../src/engine/index.js';
import type { Policy } from '../../src/policy/policy.js';
import { ScriptedEnvironment } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Answers every first turn at once and holds every second one: every episode stays in flight with one
 * turn done. What it holds (the promise's resolver, as a socket would) keeps the episode reachable.
 */
function holdingPolicy(held: unknown[]): Policy {
  return {
    name: 'holding',
    generate: (request) =>
      request.messages.some((message) => message.role === 'assistant')
        ? new Promise((resolve) => held.push(resolve))
        : Promise.resolve({
            token_ids: tokenizer.encode('ok'),
            logprobs: [-0.5, -0.5],
            text: 'ok',
            finish_reason: { unified: 'stop', raw: 'stop' },
            usage: { prompt_tokens: 1, completion_tokens: 2 },
          }),
    close: async () => {},
  };
}

/** The heap after collection with `count` episodes in flight, each one turn in, their prompt opening with `system`. */
async function heapWith(count: number, system: string): Promise<number> {
  const environment = new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'environment', content: 'again' }], reward: 0, terminated: false }) });
  const held: unknown[] = [];
  const options = episodeOptions(holdingPolicy(held), environment);
  const run = new AbortController();
  const opening = task(0, {
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: 'task' },
    ],
  });
  void runJobs(
    Array.from({ length: count }, (_, i) => i),
    { schedule: { kind: 'async', concurrency: count }, signal: run.signal },
    async (index, control) => {
      await runEpisode(opening, index, options, control);
    },
  ).catch(() => {});
  // Every episode reaches its held second turn within a few turns of the event loop.
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
  gc();
  gc();
  const heap = process.memoryUsage().heapUsed;
  assert.equal(held.length, count);
  run.abort();
  return heap;
}

describe('memory of episodes in flight', () => {
  it('holds an episode waiting on its policy in little more than its sequence, its prompt opening shared by all its repeats', async () => {
    const system = 'rule '.repeat(400);
    await heapWith(100, system);
    const few = await heapWith(200, system);
    const many = await heapWith(2_200, system);
    const perEpisodeKb = (many - few) / 2_000 / 1024;
    // The sequence's ids once (2,064 of them: 16 KB) and the episode's own objects; before issue 26 an
    // episode held them three times over (the opening's copy, the ledger's, the request's): 69 KB.
    assert.ok(perEpisodeKb < 40, `${perEpisodeKb.toFixed(1)} KB per episode in flight`);
  });
});
