import type { GptModel } from '../gpt-model.js';
import { geluBackward, geluForward, layernormBackward, layernormForward, matmulBackward, matmulForward } from '../gpt-math.js';

/** One training sequence: its tokens, and the weight of predicting each next token (0 where nothing is learned). */
export interface TrainingSequence {
  tokens: readonly number[];
  /** `weights[t]` multiplies the loss of predicting `tokens[t + 1]` (length = tokens.length - 1). */
  weights: readonly number[];
  /**
   * A weight that depends on what the forward pass finds (a policy-gradient objective's, which needs
   * the current logprob of each token): called for each `t` whose `weights[t]` is not 0, with the
   * model's logprob of `tokens[t + 1]` and the entropy of its next-token distribution, and multiplied
   * into `weights[t]`. Returning 0 everywhere skips the backward pass (a forward-only recompute).
   */
  weigh?: (t: number, logprob: number, entropy: number) => number;
}

/**
 * Full forward and hand-written backward pass of the GPT over one sequence (llm.c's kernels).
 * Adds d(loss)/d(params) to `grads` and returns the weighted loss (Σ weight · −log p(next token)).
 */
export function accumulateSequenceGradients(model: GptModel, grads: Float32Array, sequence: TrainingSequence): number {
  const { channels: C, heads: H, vocab_size: V } = model.config;
  const { params: p, layout } = model;
  const tokens = sequence.tokens;
  const T = tokens.length;
  const hs = C / H;
  const scale = 1 / Math.sqrt(hs);
  const L = layout.layers.length;

  const residual = Array.from({ length: L + 1 }, () => new Float32Array(T * C));
  const acts = layout.layers.map(() => ({
    ln1: new Float32Array(T * C),
    ln1Mean: new Float32Array(T),
    ln1Rstd: new Float32Array(T),
    qkv: new Float32Array(T * 3 * C),
    att: new Float32Array(H * T * T),
    atty: new Float32Array(T * C),
    residual2: new Float32Array(T * C),
    ln2: new Float32Array(T * C),
    ln2Mean: new Float32Array(T),
    ln2Rstd: new Float32Array(T),
    fch: new Float32Array(T * 4 * C),
    fchGelu: new Float32Array(T * 4 * C),
  }));
  const lnf = new Float32Array(T * C);
  const lnfMean = new Float32Array(T);
  const lnfRstd = new Float32Array(T);
  const probs = new Float32Array(T * V);
  const scratch = new Float32Array(T * C);

  for (let t = 0; t < T; t++) {
    for (let i = 0; i < C; i++) residual[0]![t * C + i] = p[layout.wte + tokens[t]! * C + i]! + p[layout.wpe + t * C + i]!;
  }
  layout.layers.forEach((layer, l) => {
    const a = acts[l]!;
    const x = residual[l]!;
    layernormForward(a.ln1, 0, a.ln1Mean, a.ln1Rstd, 0, x, 0, p, layer.ln1w, p, layer.ln1b, T, C);
    matmulForward(a.qkv, 0, a.ln1, 0, p, layer.qkvw, p, layer.qkvb, T, C, 3 * C);
    attentionForward(a.atty, a.att, a.qkv, T, C, H, hs, scale);
    matmulForward(scratch, 0, a.atty, 0, p, layer.projw, p, layer.projb, T, C, C);
    for (let i = 0; i < T * C; i++) a.residual2[i] = x[i]! + scratch[i]!;
    layernormForward(a.ln2, 0, a.ln2Mean, a.ln2Rstd, 0, a.residual2, 0, p, layer.ln2w, p, layer.ln2b, T, C);
    matmulForward(a.fch, 0, a.ln2, 0, p, layer.fcw, p, layer.fcb, T, C, 4 * C);
    geluForward(a.fchGelu, a.fch, 0, T * 4 * C);
    matmulForward(scratch, 0, a.fchGelu, 0, p, layer.fcprojw, p, layer.fcprojb, T, 4 * C, C);
    const next = residual[l + 1]!;
    for (let i = 0; i < T * C; i++) next[i] = a.residual2[i]! + scratch[i]!;
  });
  layernormForward(lnf, 0, lnfMean, lnfRstd, 0, residual[L]!, 0, p, layout.lnfw, p, layout.lnfb, T, C);

  // Loss and d(loss)/d(logits) = weight · (softmax − one-hot), folded straight into the tied embedding.
  let loss = 0;
  let learns = false;
  const dlnf = new Float32Array(T * C);
  for (let t = 0; t < T - 1; t++) {
    const mask = sequence.weights[t] ?? 0;
    if (mask === 0) continue;
    const row = t * V;
    let max = -Infinity;
    for (let v = 0; v < V; v++) {
      let dot = 0;
      for (let i = 0; i < C; i++) dot += lnf[t * C + i]! * p[layout.wte + v * C + i]!;
      probs[row + v] = dot;
      if (dot > max) max = dot;
    }
    let sum = 0;
    for (let v = 0; v < V; v++) {
      probs[row + v] = Math.exp(probs[row + v]! - max);
      sum += probs[row + v]!;
    }
    const target = tokens[t + 1]!;
    for (let v = 0; v < V; v++) probs[row + v] = probs[row + v]! / sum;
    const logprob = Math.log(Math.max(probs[row + target]!, 1e-30));
    const weight = sequence.weigh ? mask * sequence.weigh(t, logprob, rowEntropy(probs, row, V)) : mask;
    if (weight === 0) continue;
    learns = true;
    loss -= weight * logprob;
    for (let v = 0; v < V; v++) {
      const d = weight * (probs[row + v]! - (v === target ? 1 : 0));
      if (d === 0) continue;
      for (let i = 0; i < C; i++) {
        dlnf[t * C + i] = dlnf[t * C + i]! + d * p[layout.wte + v * C + i]!;
        grads[layout.wte + v * C + i] = grads[layout.wte + v * C + i]! + d * lnf[t * C + i]!;
      }
    }
  }

  if (!learns) return loss;
  let dres = new Float32Array(T * C);
  layernormBackward(dres, 0, grads, layout.lnfw, grads, layout.lnfb, dlnf, 0, residual[L]!, 0, p, layout.lnfw, lnfMean, lnfRstd, 0, T, C);
  for (let l = L - 1; l >= 0; l--) {
    const layer = layout.layers[l]!;
    const a = acts[l]!;
    const dresidual2 = dres.slice();
    const dfchGelu = new Float32Array(T * 4 * C);
    matmulBackward(dfchGelu, 0, grads, layer.fcprojw, grads, layer.fcprojb, dres, 0, a.fchGelu, 0, p, layer.fcprojw, T, 4 * C, C);
    const dfch = new Float32Array(T * 4 * C);
    geluBackward(dfch, a.fch, dfchGelu, 0, T * 4 * C);
    const dln2 = new Float32Array(T * C);
    matmulBackward(dln2, 0, grads, layer.fcw, grads, layer.fcb, dfch, 0, a.ln2, 0, p, layer.fcw, T, C, 4 * C);
    layernormBackward(dresidual2, 0, grads, layer.ln2w, grads, layer.ln2b, dln2, 0, a.residual2, 0, p, layer.ln2w, a.ln2Mean, a.ln2Rstd, 0, T, C);
    const dx = dresidual2.slice();
    const datty = new Float32Array(T * C);
    matmulBackward(datty, 0, grads, layer.projw, grads, layer.projb, dresidual2, 0, a.atty, 0, p, layer.projw, T, C, C);
    const dqkv = new Float32Array(T * 3 * C);
    attentionBackward(dqkv, datty, a.qkv, a.att, T, C, H, hs, scale);
    const dln1 = new Float32Array(T * C);
    matmulBackward(dln1, 0, grads, layer.qkvw, grads, layer.qkvb, dqkv, 0, a.ln1, 0, p, layer.qkvw, T, C, 3 * C);
    layernormBackward(dx, 0, grads, layer.ln1w, grads, layer.ln1b, dln1, 0, residual[l]!, 0, p, layer.ln1w, a.ln1Mean, a.ln1Rstd, 0, T, C);
    dres = dx;
  }
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < C; i++) {
      const embedding = layout.wte + tokens[t]! * C + i;
      grads[embedding] = grads[embedding]! + dres[t * C + i]!;
      grads[layout.wpe + t * C + i] = grads[layout.wpe + t * C + i]! + dres[t * C + i]!;
    }
  }
  return loss;
}

/** −Σ p·log p over one row of probabilities. */
function rowEntropy(probs: Float32Array, row: number, V: number): number {
  let entropy = 0;
  for (let v = 0; v < V; v++) {
    const p = probs[row + v]!;
    if (p > 0) entropy -= p * Math.log(p);
  }
  return entropy;
}

function attentionForward(out: Float32Array, att: Float32Array, qkv: Float32Array, T: number, C: number, H: number, hs: number, scale: number): void {
  out.fill(0);
  for (let h = 0; h < H; h++) {
    for (let t = 0; t < T; t++) {
      const q = t * 3 * C + h * hs;
      const row = (h * T + t) * T;
      let max = -Infinity;
      for (let t2 = 0; t2 <= t; t2++) {
        const k = t2 * 3 * C + C + h * hs;
        let dot = 0;
        for (let i = 0; i < hs; i++) dot += qkv[q + i]! * qkv[k + i]!;
        att[row + t2] = dot * scale;
        if (att[row + t2]! > max) max = att[row + t2]!;
      }
      let sum = 0;
      for (let t2 = 0; t2 <= t; t2++) {
        att[row + t2] = Math.exp(att[row + t2]! - max);
        sum += att[row + t2]!;
      }
      for (let t2 = 0; t2 <= t; t2++) {
        att[row + t2] = att[row + t2]! / sum;
        const v = t2 * 3 * C + 2 * C + h * hs;
        for (let i = 0; i < hs; i++) out[t * C + h * hs + i] = out[t * C + h * hs + i]! + att[row + t2]! * qkv[v + i]!;
      }
    }
  }
}

function attentionBackward(
  dqkv: Float32Array,
  dout: Float32Array,
  qkv: Float32Array,
  att: Float32Array,
  T: number,
  C: number,
  H: number,
  hs: number,
  scale: number,
): void {
  const datt = new Float32Array(T);
  for (let h = 0; h < H; h++) {
    for (let t = 0; t < T; t++) {
      const row = (h * T + t) * T;
      const d = t * C + h * hs;
      let weighted = 0;
      for (let t2 = 0; t2 <= t; t2++) {
        const v = t2 * 3 * C + 2 * C + h * hs;
        let dot = 0;
        for (let i = 0; i < hs; i++) {
          dot += qkv[v + i]! * dout[d + i]!;
          dqkv[v + i] = dqkv[v + i]! + att[row + t2]! * dout[d + i]!;
        }
        datt[t2] = dot;
        weighted += att[row + t2]! * dot;
      }
      const q = t * 3 * C + h * hs;
      for (let t2 = 0; t2 <= t; t2++) {
        const dpre = att[row + t2]! * (datt[t2]! - weighted) * scale;
        const k = t2 * 3 * C + C + h * hs;
        for (let i = 0; i < hs; i++) {
          dqkv[q + i] = dqkv[q + i]! + dpre * qkv[k + i]!;
          dqkv[k + i] = dqkv[k + i]! + dpre * qkv[q + i]!;
        }
      }
    }
  }
}
