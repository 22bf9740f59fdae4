import type { GptModel } from './gpt-model.js';
import { geluForward, layernormForward, matmulForward } from './gpt-math.js';

/** The keys and values one sequence has produced so far, per layer. */
export class KvCache {
  readonly keys: Float32Array[];
  readonly values: Float32Array[];
  /** Floats per position in each layer's keys (and values). */
  readonly channels: number;
  length = 0;

  constructor(model: GptModel) {
    this.channels = model.config.channels;
    const size = model.config.context_length * model.config.channels;
    this.keys = Array.from({ length: model.config.layers }, () => new Float32Array(size));
    this.values = Array.from({ length: model.config.layers }, () => new Float32Array(size));
  }
}

/**
 * Incremental decoding: feeds a batch of rows at once, each a token and the cache of its sequence, and
 * returns the logits of each sequence's last row, one row of logits per sequence in the order they
 * come. Batching reads every weight row once for all rows, which is where concurrent episodes gain. A
 * sequence may bring several rows (its whole prompt, read in one step): they come together and in
 * order, at consecutive positions, each attending to the ones before it; only the last predicts a
 * token that is sampled, so only its logits are computed (a prompt's other rows would cost a
 * vocabulary projection each, for nothing). Rows do not mix, so a token's logits are the same bits
 * however it was batched.
 */
export function decodeStep(model: GptModel, tokens: readonly number[], caches: readonly KvCache[]): Float32Array {
  const { channels: C, heads: H, vocab_size: V, context_length: maxT } = model.config;
  const { params: p, layout } = model;
  const B = tokens.length;
  const hs = C / H;
  const scale = 1 / Math.sqrt(hs);
  const x = new Float32Array(B * C);
  const norm = new Float32Array(B * C);
  const qkv = new Float32Array(B * 3 * C);
  const attended = new Float32Array(B * C);
  const projected = new Float32Array(B * C);
  const hidden = new Float32Array(B * 4 * C);
  const mean = new Float32Array(B);
  const rstd = new Float32Array(B);
  const scores = new Float32Array(maxT);
  const positions = new Int32Array(B);

  for (let b = 0; b < B; b++) {
    const position = b > 0 && caches[b] === caches[b - 1] ? positions[b - 1]! + 1 : caches[b]!.length;
    if (position >= maxT) throw new RangeError(`row ${b} is past the end of its sequence (${maxT} tokens)`);
    positions[b] = position;
    const token = tokens[b]!;
    for (let i = 0; i < C; i++) x[b * C + i] = p[layout.wte + token * C + i]! + p[layout.wpe + position * C + i]!;
  }

  model.layout.layers.forEach((layer, l) => {
    layernormForward(norm, 0, mean, rstd, 0, x, 0, p, layer.ln1w, p, layer.ln1b, B, C);
    matmulForward(qkv, 0, norm, 0, p, layer.qkvw, p, layer.qkvb, B, C, 3 * C);
    for (let b = 0; b < B; b++) {
      const cache = caches[b]!;
      const position = positions[b]!;
      const keys = cache.keys[l]!;
      const values = cache.values[l]!;
      keys.set(qkv.subarray(b * 3 * C + C, b * 3 * C + 2 * C), position * C);
      values.set(qkv.subarray(b * 3 * C + 2 * C, b * 3 * C + 3 * C), position * C);
      for (let h = 0; h < H; h++) {
        const q = b * 3 * C + h * hs;
        let max = -Infinity;
        for (let t = 0; t <= position; t++) {
          let dot = 0;
          for (let i = 0; i < hs; i++) dot += qkv[q + i]! * keys[t * C + h * hs + i]!;
          scores[t] = dot * scale;
          if (scores[t]! > max) max = scores[t]!;
        }
        let sum = 0;
        for (let t = 0; t <= position; t++) {
          scores[t] = Math.exp(scores[t]! - max);
          sum += scores[t]!;
        }
        const out = b * C + h * hs;
        for (let i = 0; i < hs; i++) attended[out + i] = 0;
        for (let t = 0; t <= position; t++) {
          const weight = scores[t]! / sum;
          for (let i = 0; i < hs; i++) attended[out + i] = attended[out + i]! + weight * values[t * C + h * hs + i]!;
        }
      }
    }
    matmulForward(projected, 0, attended, 0, p, layer.projw, p, layer.projb, B, C, C);
    for (let i = 0; i < B * C; i++) x[i] = x[i]! + projected[i]!;
    layernormForward(norm, 0, mean, rstd, 0, x, 0, p, layer.ln2w, p, layer.ln2b, B, C);
    matmulForward(hidden, 0, norm, 0, p, layer.fcw, p, layer.fcb, B, C, 4 * C);
    geluForward(hidden, hidden, 0, B * 4 * C);
    matmulForward(projected, 0, hidden, 0, p, layer.fcprojw, p, layer.fcprojb, B, 4 * C, C);
    for (let i = 0; i < B * C; i++) x[i] = x[i]! + projected[i]!;
  });

  // A sequence's rows come in order, so its last row's position sets where its cache now ends.
  const lasts: number[] = [];
  caches.forEach((cache, b) => {
    cache.length = positions[b]! + 1;
    if (caches[b + 1] !== cache) lasts.push(b);
  });
  const S = lasts.length;
  const last = new Float32Array(S * C);
  lasts.forEach((b, s) => last.set(x.subarray(b * C, (b + 1) * C), s * C));
  layernormForward(norm, 0, mean, rstd, 0, last, 0, p, layout.lnfw, p, layout.lnfb, S, C);
  const logits = new Float32Array(S * V);
  const zeros = new Float32Array(V);
  matmulForward(logits, 0, norm, 0, p, layout.wte, zeros, 0, S, C, V);
  return logits;
}
