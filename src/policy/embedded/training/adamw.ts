export interface AdamWOptions {
  learningRate: number;
  beta1: number;
  beta2: number;
  epsilon: number;
  weightDecay: number;
}

/** AdamW over one flat parameter array; moments live here. */
export class AdamW {
  readonly #m: Float32Array;
  readonly #v: Float32Array;
  #step = 0;

  constructor(size: number) {
    this.#m = new Float32Array(size);
    this.#v = new Float32Array(size);
  }

  update(params: Float32Array, grads: Float32Array, options: AdamWOptions): void {
    this.#step += 1;
    const { learningRate, beta1, beta2, epsilon, weightDecay } = options;
    const correction1 = 1 - beta1 ** this.#step;
    const correction2 = 1 - beta2 ** this.#step;
    for (let i = 0; i < params.length; i++) {
      const g = grads[i]!;
      const m = (this.#m[i] = beta1 * this.#m[i]! + (1 - beta1) * g);
      const v = (this.#v[i] = beta2 * this.#v[i]! + (1 - beta2) * g * g);
      params[i] = params[i]! - learningRate * (m / correction1 / (Math.sqrt(v / correction2) + epsilon) + weightDecay * params[i]!);
    }
  }
}
