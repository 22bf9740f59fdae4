import { decodeStep, KvCache } from '../../src/policy/embedded/gpt-decoder.js';
import type { GptModel } from '../../src/policy/embedded/gpt-model.js';
import type { ConversationRenderer, HfTokenizer } from '../../src/tokens/index.js';
import { TokenLedger } from '../../src/tokens/index.js';
import { arithmeticPrompt } from '../../src/environments/index.js';
import { isHeldOutAddition } from './synthetic-episodes.js';

/** Every held-out 2-digit addition (a + 7b ≡ 0 mod 10), in a fixed order. */
export function heldOutAdditions(): [number, number][] {
  const pairs: [number, number][] = [];
  for (let a = 10; a <= 99; a++) for (let b = 10; b <= 99; b++) if (isHeldOutAddition(a, b)) pairs.push([a, b]);
  return pairs;
}

/** Greedy exact match on held-out additions, decoded in batches straight from the weights. */
export function additionAccuracy(model: GptModel, tokenizer: HfTokenizer, renderer: ConversationRenderer, pairs: readonly [number, number][]): number {
  const end = tokenizer.stopTokenIds[0]!;
  let correct = 0;
  for (let start = 0; start < pairs.length; start += 32) {
    const batch = pairs.slice(start, start + 32);
    const prompts = batch.map(([a, b]) => renderer.renderDelta(new TokenLedger(tokenizer), [], arithmeticPrompt({ problem: `${a}+${b}` }), { addGenerationPrompt: true }).tokenIds.flat());
    const caches = batch.map(() => new KvCache(model));
    const outputs: number[][] = batch.map(() => []);
    const length = prompts[0]!.length;
    let logits: Float32Array = new Float32Array(0);
    for (let t = 0; t < length; t++) logits = decodeStep(model, prompts.map((prompt) => prompt[t]!), caches);
    for (let step = 0; step < 6; step++) {
      const next = batch.map((_, b) => argmax(logits, b * model.config.vocab_size, model.config.vocab_size));
      next.forEach((token, b) => outputs[b]!.push(token));
      logits = decodeStep(model, next, caches);
    }
    batch.forEach(([a, b], i) => {
      const ids = outputs[i]!;
      const answer = tokenizer.decode(ids.slice(0, ids.indexOf(end) < 0 ? ids.length : ids.indexOf(end)));
      if (answer === String(a + b)) correct += 1;
    });
  }
  return correct / pairs.length;
}

function argmax(values: Float32Array, offset: number, n: number): number {
  let best = 0;
  for (let i = 1; i < n; i++) if (values[offset + i]! > values[offset + best]!) best = i;
  return best;
}
