import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { ContextLengthError, hasKind, SamplingParams } from '../../src/core/index.js';
import { EmbeddedPolicy, GptModel, type PolicyRequest } from '../../src/policy/index.js';
import { decodeStep, KvCache } from '../../src/policy/embedded/gpt-decoder.js';
import { PrefixCache } from '../../src/policy/embedded/prefix-cache.js';
import { accumulateSequenceGradients } from '../../src/policy/embedded/training/sequence-gradients.js';
import { loadHfTokenizer } from '../../src/tokens/index.js';
import { createSeededRandom } from '../../src/util/seeded-random.js';

// A random-init model from a seed: the same code path as the trained one, deterministic, no file.
const tokenizer = await loadHfTokenizer(new URL('../../assets/embedded/', import.meta.url).pathname);
const random = createSeededRandom(5);
const model = GptModel.initialize({ vocab_size: tokenizer.vocabSize, context_length: 128, channels: 32, layers: 2, heads: 4 }, () => random.next());
for (let i = 0; i < model.params.length; i++) model.params[i] = model.params[i]! * 20;
const policy = new EmbeddedPolicy(model, tokenizer);
const prompt = tokenizer.encode('<|user|>what is 12+34?<|end|><|assistant|>');
const signal = new AbortController().signal;

const request = (overrides: Partial<Omit<PolicyRequest, 'sampling'>> & { sampling?: Partial<SamplingParams> } = {}): PolicyRequest => ({
  session_id: 's',
  prompt_token_ids: prompt,
  messages: [],
  stop_strings: [],
  stop_token_ids: [],
  ...overrides,
  sampling: SamplingParams.parse({ max_tokens: 20, seed: 1, ...overrides.sampling }),
});

describe('the embedded policy', () => {
  it('records logprobs equal to a full forward recompute of the sampled tokens (within 1e-4)', async () => {
    const result = await policy.generate(request({ sampling: { max_tokens: 30, seed: 3 } }), signal);
    const tokens = [...prompt, ...result.token_ids];
    result.token_ids.forEach((_, j) => {
      const position = prompt.length - 1 + j;
      const weights = tokens.slice(1).map((_, t) => (t === position ? 1 : 0));
      const recomputed = -accumulateSequenceGradients(model, new Float32Array(model.params.length), { tokens, weights });
      assert.ok(Math.abs(recomputed - result.logprobs[j]!) < 1e-4, `token ${j}: ${recomputed} vs ${result.logprobs[j]}`);
    });
  });

  it('says its logprobs are raw (before temperature and filters), and the engine records that on every turn', async () => {
    const result = await policy.generate(request(), signal);
    assert.equal(result.logprobs_mode, 'raw');
  });

  it('gives the same tokens for the same seed, and different ones for another seed', async () => {
    const a = await policy.generate(request({ sampling: { seed: 11 } }), signal);
    const b = await policy.generate(request({ sampling: { seed: 11 } }), signal);
    const c = await policy.generate(request({ sampling: { seed: 12 } }), signal);
    assert.deepEqual(a.token_ids, b.token_ids);
    assert.deepEqual(a.logprobs, b.logprobs);
    assert.notDeepEqual(a.token_ids, c.token_ids);
  });

  it('samples the same tokens whether requests run alone or batched with others', async () => {
    const alone = [];
    for (let seed = 0; seed < 6; seed++) alone.push(await policy.generate(request({ sampling: { seed } }), signal));
    const together = await Promise.all(Array.from({ length: 6 }, (_, seed) => policy.generate(request({ sampling: { seed } }), signal)));
    assert.deepEqual(together, alone);
  });

  it('ends on max_tokens with finish reason length, and on a stop string or stop token with stop', async () => {
    const capped = await policy.generate(request({ sampling: { max_tokens: 5, seed: 4 } }), signal);
    assert.equal(capped.token_ids.length <= 5, true);
    if (capped.token_ids.length === 5) assert.equal(capped.finish_reason.unified, 'length');

    const free = await policy.generate(request({ sampling: { max_tokens: 40, seed: 4 } }), signal);
    const stopString = tokenizer.decode(free.token_ids.slice(2, 3));
    const stopped = await policy.generate(request({ sampling: { max_tokens: 40, seed: 4 }, stop_strings: [stopString] }), signal);
    assert.equal(stopped.finish_reason.unified, 'stop');
    assert.ok(stopped.text.includes(stopString));
    assert.ok(stopped.token_ids.length <= 3);

    const stopToken = free.token_ids[1]!;
    const byToken = await policy.generate(request({ sampling: { max_tokens: 40, seed: 4 }, stop_token_ids: [stopToken] }), signal);
    assert.equal(byToken.finish_reason.unified, 'stop');
    assert.equal(byToken.token_ids.at(-1), stopToken);
  });

  it('is greedy at temperature 0: every token is the most likely one', async () => {
    const result = await policy.generate(request({ sampling: { temperature: 0, max_tokens: 10 } }), signal);
    const again = await policy.generate(request({ sampling: { temperature: 0, max_tokens: 10, seed: 99 } }), signal);
    assert.deepEqual(result.token_ids, again.token_ids);
  });

  it('leaves no listener on a long-lived signal once requests end (the server shares one for all requests)', async () => {
    const shared = new AbortController().signal;
    for (let i = 0; i < 12; i++) await policy.generate(request({ sampling: { seed: i, max_tokens: 3 } }), shared);
    assert.equal(getEventListeners(shared, 'abort').length, 0);
  });

  it('refuses a prompt that fills its context, and aborts on the signal', async () => {
    await assert.rejects(policy.generate(request({ prompt_token_ids: Array.from({ length: 128 }, () => 5) }), signal), ContextLengthError);
    const controller = new AbortController();
    const pending = policy.generate(request({ sampling: { max_tokens: 100 } }), controller.signal);
    controller.abort(new Error('stop'));
    await assert.rejects(pending, /stop/);
  });

  it('ends the generations still decoding when closed, as aborted', async () => {
    const closing = new EmbeddedPolicy(model, tokenizer);
    const pending = closing.generate(request({ sampling: { max_tokens: 100 } }), signal);
    await closing.close();
    await assert.rejects(pending, (error) => hasKind(error, 'aborted'));
  });

  it('starts a prompt from the keys and values of a finished sequence that shares its prefix, and samples exactly what a cold start samples', async () => {
    // The first request's prompt and reply make the second's opening (an episode's next turn); the third shares only the template's opening.
    const first = request({ sampling: { max_tokens: 12, seed: 21 } });
    const warm = new EmbeddedPolicy(model, tokenizer);
    const opening = await warm.generate(first, signal);
    const nextTurn = request({
      prompt_token_ids: [...prompt, ...opening.token_ids, ...tokenizer.encode('<|user|>again<|end|><|assistant|>')],
      sampling: { max_tokens: 12, seed: 22 },
    });
    const other = request({ prompt_token_ids: tokenizer.encode('<|user|>what is 99+1?<|end|><|assistant|>'), sampling: { max_tokens: 12, seed: 23 } });
    for (const next of [nextTurn, other])
      assert.deepEqual(await warm.generate(next, signal), await new EmbeddedPolicy(model, tokenizer).generate(next, signal));
  });
});

describe('the prefix cache', () => {
  const keep = (cache: PrefixCache, tokens: number[]) => {
    const kept = new KvCache(model);
    decodeStep(
      model,
      tokens,
      tokens.map(() => kept),
    );
    cache.keep(tokens, kept);
    return kept;
  };

  it('gives a prompt the rows of the longest prefix a kept sequence shares with it, and the rest to read', () => {
    const cache = new PrefixCache(4);
    keep(cache, [1, 6, 7, 8]);
    const kept = keep(cache, [1, 6, 7, 9, 10]);
    const { cache: started, pending } = cache.start(model, [1, 6, 7, 9, 11, 12]);
    assert.equal(started.length, 4);
    assert.deepEqual(pending, [11, 12]);
    const width = 4 * model.config.channels;
    for (let layer = 0; layer < model.config.layers; layer++) {
      assert.deepEqual(started.keys[layer]!.subarray(0, width), kept.keys[layer]!.subarray(0, width));
      assert.deepEqual(started.values[layer]!.subarray(0, width), kept.values[layer]!.subarray(0, width));
    }
  });

  it("always leaves the prompt's last token to read, whose logits give the first token", () => {
    const cache = new PrefixCache(4);
    keep(cache, [1, 6, 7, 8, 9]);
    const { cache: started, pending } = cache.start(model, [1, 6, 7]);
    assert.equal(started.length, 2);
    assert.deepEqual(pending, [7]);
  });

  it('starts cold on no shared prefix, and forgets the least recently used sequence past its capacity', () => {
    const cache = new PrefixCache(2);
    keep(cache, [1, 6]);
    keep(cache, [2, 6]);
    cache.start(model, [1, 6, 9]);
    keep(cache, [3, 6]);
    assert.equal(cache.start(model, [4, 6, 9]).pending.length, 3);
    assert.equal(cache.start(model, [1, 6, 9]).cache.length, 2, 'used last, so kept');
    assert.equal(cache.start(model, [2, 6, 9]).cache.length, 0, 'least recently used, so forgotten');
  });
});
