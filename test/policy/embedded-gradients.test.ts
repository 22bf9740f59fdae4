import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeStep, KvCache } from '../../src/policy/embedded/gpt-decoder.js';
import { GptModel } from '../../src/policy/embedded/gpt-model.js';
import { accumulateSequenceGradients, type TrainingSequence } from '../../src/policy/embedded/training/sequence-gradients.js';
import { logSoftmax } from '../../src/policy/embedded/gpt-math.js';
import { createSeededRandom } from '../../src/util/seeded-random.js';

const config = { vocab_size: 11, context_length: 8, channels: 8, layers: 2, heads: 2 };
const random = createSeededRandom(1);
const model = GptModel.initialize(config, () => random.next());
// Larger weights than the initialization, so every path carries gradient worth checking (not so large
// that softmaxes saturate and finite differences stop being accurate in float32).
for (let i = 0; i < model.params.length; i++) model.params[i] = model.params[i]! * 2 + (random.next() - 0.5) * 0.1;
const sequence: TrainingSequence = { tokens: [1, 4, 2, 7, 3, 9], weights: [0, 1, 0.5, 1, 1] };

describe('the embedded GPT', () => {
  it('computes gradients that match finite differences on every tensor', () => {
    const grads = new Float32Array(model.params.length);
    accumulateSequenceGradients(model, grads, sequence);
    const loss = () => accumulateSequenceGradients(model, new Float32Array(model.params.length), sequence);
    const checked = Array.from({ length: 300 }, () => random.int(0, model.params.length - 1));
    let worst = 0;
    for (const i of checked) {
      const saved = model.params[i]!;
      const h = 1e-2;
      model.params[i] = saved + h;
      const up = loss();
      model.params[i] = saved - h;
      const down = loss();
      model.params[i] = saved;
      const numeric = (up - down) / (2 * h);
      const error = Math.abs(numeric - grads[i]!) / Math.max(1e-2, Math.abs(numeric) + Math.abs(grads[i]!));
      worst = Math.max(worst, error);
    }
    assert.ok(worst < 5e-2, `worst relative error ${worst}`);
  });

  it('decodes with a KV cache to the same next-token distribution as the full forward pass', () => {
    const caches = [new KvCache(model)];
    let logits: Float32Array = new Float32Array(0);
    for (const token of sequence.tokens) logits = decodeStep(model, [token], caches);
    const cached = new Float32Array(config.vocab_size);
    logSoftmax(cached, logits, 0, config.vocab_size);
    // The training pass's loss at the last position is −log p(target); compare for every possible target.
    for (let target = 0; target < config.vocab_size; target++) {
      const full = accumulateSequenceGradients(model, new Float32Array(model.params.length), {
        tokens: [...sequence.tokens, target],
        weights: [0, 0, 0, 0, 0, 1],
      });
      assert.ok(Math.abs(-full - cached[target]!) < 1e-4, `target ${target}: ${-full} vs ${cached[target]}`);
    }
  });

  it('decodes a batch of sequences exactly as it decodes each alone', () => {
    const alone = [new KvCache(model)];
    const batched = [new KvCache(model), new KvCache(model)];
    let single: Float32Array = new Float32Array(0);
    let pair: Float32Array = new Float32Array(0);
    for (let t = 0; t < 4; t++) {
      single = decodeStep(model, [sequence.tokens[t]!], alone);
      pair = decodeStep(model, [5, sequence.tokens[t]!], batched);
    }
    for (let v = 0; v < config.vocab_size; v++) assert.ok(Math.abs(single[v]! - pair[config.vocab_size + v]!) < 1e-5);
  });

  it('reads a prompt in one step to the same next-token logits as token by token, one row of logits per sequence', () => {
    const stepwise = [new KvCache(model)];
    let single: Float32Array = new Float32Array(0);
    for (const token of sequence.tokens) single = decodeStep(model, [token], stepwise);
    const prompt = new KvCache(model);
    const other = new KvCache(model);
    const batched = decodeStep(model, [...sequence.tokens, 3], [...sequence.tokens.map(() => prompt), other]);
    assert.equal(batched.length, 2 * config.vocab_size, 'the prompt and the other sequence: two rows');
    for (let v = 0; v < config.vocab_size; v++) assert.ok(Math.abs(single[v]! - batched[v]!) < 1e-5);
    assert.equal(prompt.length, sequence.tokens.length);
  });
});
