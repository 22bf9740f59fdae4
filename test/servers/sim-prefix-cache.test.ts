import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ids, profileWith, runRequest, virtualEngine } from '../support/sim-engine.js';

// Blocks of 16 tokens. A prompt's hits are its leading full blocks the cache holds, at most
// floor((length - 1) / 16) of them: the last prompt token is always computed, to sample from.

describe('simulated engine: prefix caching, counted exactly', () => {
  it('counts the cached tokens of each admitted request: a shared system prompt, a repeated prompt, the next turn of a conversation', async () => {
    const { engine } = virtualEngine(profileWith());
    const system = ids(100, 1000);
    const expected = { queries: 0, hits: 0 };
    const admit = async (prompt: number[], reply: number[], hits: number) => {
      const request = await runRequest(engine, prompt, reply);
      expected.queries += prompt.length;
      expected.hits += hits;
      assert.deepEqual(
        { queries: engine.accounting.prefixQueries, hits: engine.accounting.prefixHits },
        expected,
        `after a prompt of ${prompt.length} with ${hits} cached`,
      );
      return request;
    };
    const first = await admit(system, ids(20, 5000), 0);
    // Six full blocks of the system prompt (96 tokens) are cached; 64 of them start this prompt.
    await admit([...system.slice(0, 64), ...ids(50, 2000)], ids(5, 6000), 64);
    // The same prompt again: 6 blocks, the partial seventh recomputed.
    await admit(system, ids(5, 7000), 96);
    // Exactly 4 blocks long: only 3 can hit, the last token is computed.
    await admit(system.slice(0, 64), ids(5, 8000), 48);
    // The next turn: the first turn's prompt and reply, then more. The reply's KV was computed up to its
    // last token (119 tokens: 7 full blocks), and full blocks of generated tokens are cached too.
    await admit([...first.tokens, ...ids(30, 3000)], ids(5, 9000), 112);
    assert.equal(engine.accounting.prefillTokens, 100 + (114 - 64) + (100 - 96) + (64 - 48) + (150 - 112));
  });

  it('evicts the least recently freed blocks first, and a finished sequence tail before its head', async () => {
    // 20 blocks. The first request holds blocks 0-6 (six full and a partial one) and frees them tail
    // first: the free queue is then 7…19, 6, 5, 4, 3, 2, 1, 0. A 300-token prompt takes 19 blocks from
    // its head: 7…19, then 6…1, so of the first prompt only its first block stays cached.
    const { engine } = virtualEngine(profileWith({ numGpuBlocks: 20 }));
    const prompt = ids(100, 1000);
    await runRequest(engine, prompt, ids(1, 5000));
    await runRequest(engine, ids(300, 20_000), ids(1, 5000));
    const hitsBefore = engine.accounting.prefixHits;
    await runRequest(engine, prompt, ids(1, 5000));
    assert.equal(engine.accounting.prefixHits - hitsBefore, 16);
  });

  it('without prefix caching, nothing is found', async () => {
    const { engine } = virtualEngine(profileWith({ enablePrefixCaching: false }));
    const prompt = ids(100, 1000);
    await runRequest(engine, prompt, ids(3, 5000));
    await runRequest(engine, prompt, ids(3, 5000));
    assert.deepEqual([engine.accounting.prefixQueries, engine.accounting.prefixHits], [200, 0]);
  });

  it('a prefix-cache reset (a pause that clears the cache) forgets free blocks, and a cached prompt is prefilled in full again', async () => {
    const { engine } = virtualEngine(profileWith());
    const prompt = ids(100, 1000);
    await runRequest(engine, prompt, ids(3, 5000));
    await engine.pause('keep', true);
    engine.resume();
    await runRequest(engine, prompt, ids(3, 5000));
    assert.equal(engine.accounting.prefixHits, 0);
    await runRequest(engine, prompt, ids(3, 5000));
    assert.equal(engine.accounting.prefixHits, 96);
  });
});
