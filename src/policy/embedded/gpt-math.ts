/**
 * The kernels of the embedded GPT, shared by decoding and training. Plain loops over Float32Arrays
 * (offsets instead of subarrays, so nothing is allocated in the hot path); weights are [out, in], row-major.
 */

/**
 * out[t, o] = b[o] + Σ_i inp[t, i] · w[o, i] for T rows. Rows are taken four at a time so each weight
 * is loaded once for four rows: this is what makes decoding a batch of sequences cheaper per token.
 */
export function matmulForward(
  out: Float32Array,
  outOffset: number,
  inp: Float32Array,
  inpOffset: number,
  w: Float32Array,
  wOffset: number,
  b: Float32Array,
  bOffset: number,
  T: number,
  C: number,
  OC: number,
): void {
  for (let o = 0; o < OC; o++) {
    const row = wOffset + o * C;
    const bias = b[bOffset + o]!;
    let t = 0;
    for (; t + 3 < T; t += 4) {
      const x0 = inpOffset + t * C;
      const x1 = x0 + C;
      const x2 = x1 + C;
      const x3 = x2 + C;
      let s0 = 0,
        s1 = 0,
        s2 = 0,
        s3 = 0;
      for (let i = 0; i < C; i++) {
        const weight = w[row + i]!;
        s0 += inp[x0 + i]! * weight;
        s1 += inp[x1 + i]! * weight;
        s2 += inp[x2 + i]! * weight;
        s3 += inp[x3 + i]! * weight;
      }
      const o0 = outOffset + t * OC + o;
      out[o0] = bias + s0;
      out[o0 + OC] = bias + s1;
      out[o0 + 2 * OC] = bias + s2;
      out[o0 + 3 * OC] = bias + s3;
    }
    // The same summation order as the blocked rows, so a sequence decodes to the same bits alone or in a batch.
    for (; t < T; t++) {
      const x = inpOffset + t * C;
      let sum = 0;
      for (let i = 0; i < C; i++) sum += inp[x + i]! * w[row + i]!;
      out[outOffset + t * OC + o] = bias + sum;
    }
  }
}

export function matmulBackward(
  dinp: Float32Array,
  dinpOffset: number,
  dw: Float32Array,
  dwOffset: number,
  db: Float32Array,
  dbOffset: number,
  dout: Float32Array,
  doutOffset: number,
  inp: Float32Array,
  inpOffset: number,
  w: Float32Array,
  wOffset: number,
  T: number,
  C: number,
  OC: number,
): void {
  for (let t = 0; t < T; t++) {
    const dx = dinpOffset + t * C;
    const x = inpOffset + t * C;
    for (let o = 0; o < OC; o++) {
      const d = dout[doutOffset + t * OC + o]!;
      if (d === 0) continue;
      const row = wOffset + o * C;
      const drow = dwOffset + o * C;
      for (let i = 0; i < C; i++) {
        dinp[dx + i] = dinp[dx + i]! + d * w[row + i]!;
        dw[drow + i] = dw[drow + i]! + d * inp[x + i]!;
      }
      db[dbOffset + o] = db[dbOffset + o]! + d;
    }
  }
}

export function layernormForward(
  out: Float32Array,
  outOffset: number,
  mean: Float32Array,
  rstd: Float32Array,
  statOffset: number,
  inp: Float32Array,
  inpOffset: number,
  w: Float32Array,
  wOffset: number,
  b: Float32Array,
  bOffset: number,
  T: number,
  C: number,
): void {
  for (let t = 0; t < T; t++) {
    const x = inpOffset + t * C;
    let m = 0;
    for (let i = 0; i < C; i++) m += inp[x + i]!;
    m /= C;
    let v = 0;
    for (let i = 0; i < C; i++) v += (inp[x + i]! - m) ** 2;
    const s = 1 / Math.sqrt(v / C + 1e-5);
    const o = outOffset + t * C;
    for (let i = 0; i < C; i++) out[o + i] = (inp[x + i]! - m) * s * w[wOffset + i]! + b[bOffset + i]!;
    mean[statOffset + t] = m;
    rstd[statOffset + t] = s;
  }
}

export function layernormBackward(
  dinp: Float32Array,
  dinpOffset: number,
  dw: Float32Array,
  dwOffset: number,
  db: Float32Array,
  dbOffset: number,
  dout: Float32Array,
  doutOffset: number,
  inp: Float32Array,
  inpOffset: number,
  w: Float32Array,
  wOffset: number,
  mean: Float32Array,
  rstd: Float32Array,
  statOffset: number,
  T: number,
  C: number,
): void {
  for (let t = 0; t < T; t++) {
    const x = inpOffset + t * C;
    const d = doutOffset + t * C;
    const m = mean[statOffset + t]!;
    const s = rstd[statOffset + t]!;
    let dnormMean = 0;
    let dnormNormMean = 0;
    for (let i = 0; i < C; i++) {
      const norm = (inp[x + i]! - m) * s;
      const dnorm = w[wOffset + i]! * dout[d + i]!;
      dnormMean += dnorm;
      dnormNormMean += dnorm * norm;
    }
    dnormMean /= C;
    dnormNormMean /= C;
    for (let i = 0; i < C; i++) {
      const norm = (inp[x + i]! - m) * s;
      const dnorm = w[wOffset + i]! * dout[d + i]!;
      db[dbOffset + i] = db[dbOffset + i]! + dout[d + i]!;
      dw[dwOffset + i] = dw[dwOffset + i]! + norm * dout[d + i]!;
      dinp[dinpOffset + t * C + i] = dinp[dinpOffset + t * C + i]! + (dnorm - dnormMean - norm * dnormNormMean) * s;
    }
  }
}

const GELU_SCALE = Math.sqrt(2 / Math.PI);

export function geluForward(out: Float32Array, inp: Float32Array, offset: number, n: number): void {
  for (let i = offset; i < offset + n; i++) {
    const x = inp[i]!;
    out[i] = 0.5 * x * (1 + Math.tanh(GELU_SCALE * (x + 0.044715 * x * x * x)));
  }
}

export function geluBackward(dinp: Float32Array, inp: Float32Array, dout: Float32Array, offset: number, n: number): void {
  for (let i = offset; i < offset + n; i++) {
    const x = inp[i]!;
    const cube = 0.044715 * x * x * x;
    const tanhOut = Math.tanh(GELU_SCALE * (x + cube));
    const sech2 = 1 - tanhOut * tanhOut;
    const local = 0.5 * (1 + tanhOut) + x * 0.5 * sech2 * GELU_SCALE * (1 + 3 * 0.044715 * x * x);
    dinp[i] = dinp[i]! + local * dout[i]!;
  }
}

/** Natural-log softmax of `n` logits starting at `offset`, written to `out` from 0. */
export function logSoftmax(out: Float32Array, logits: Float32Array, offset: number, n: number): void {
  let max = -Infinity;
  for (let i = 0; i < n; i++) max = Math.max(max, logits[offset + i]!);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(logits[offset + i]! - max);
  const logSum = max + Math.log(sum);
  for (let i = 0; i < n; i++) out[i] = logits[offset + i]! - logSum;
}
