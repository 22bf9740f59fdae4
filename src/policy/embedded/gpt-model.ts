import { createHash } from 'node:crypto';
import { type GptConfig, parameterLayout, type ParameterLayout } from './gpt-config.js';

/** The weights of the embedded GPT: one flat little-endian float32 array, laid out by `parameterLayout`. */
export class GptModel {
  readonly config: GptConfig;
  readonly layout: ParameterLayout;
  readonly params: Float32Array;

  constructor(config: GptConfig, params?: Float32Array) {
    this.config = config;
    this.layout = parameterLayout(config);
    this.params = params ?? new Float32Array(this.layout.size);
    if (this.params.length !== this.layout.size) {
      throw new RangeError(`the weights hold ${this.params.length} floats but the config needs ${this.layout.size}`);
    }
  }

  /** GPT-2's initialization from a seed: normal(0, 0.02) weights, residual projections scaled by 1/√(2L), unit layer norms. */
  static initialize(config: GptConfig, random: () => number): GptModel {
    const model = new GptModel(config);
    const { params, layout } = model;
    const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const fill = (offset: number, size: number, std: number) => {
      for (let i = 0; i < size; i++) params[offset + i] = normal() * std;
    };
    const C = config.channels;
    const residualStd = 0.02 / Math.sqrt(2 * config.layers);
    fill(layout.wte, config.vocab_size * C, 0.02);
    fill(layout.wpe, config.context_length * C, 0.01);
    for (const layer of layout.layers) {
      params.fill(1, layer.ln1w, layer.ln1w + C);
      params.fill(1, layer.ln2w, layer.ln2w + C);
      fill(layer.qkvw, 3 * C * C, 0.02);
      fill(layer.projw, C * C, residualStd);
      fill(layer.fcw, 4 * C * C, 0.02);
      fill(layer.fcprojw, 4 * C * C, residualStd);
    }
    params.fill(1, layout.lnfw, layout.lnfw + C);
    return model;
  }

  /** Little-endian float32 bytes (the committed weights file). */
  toBytes(): Buffer {
    const bytes = Buffer.alloc(this.params.length * 4);
    this.params.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
    return bytes;
  }

  static fromBytes(config: GptConfig, bytes: Uint8Array): GptModel {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const params = new Float32Array(bytes.byteLength / 4);
    for (let i = 0; i < params.length; i++) params[i] = buffer.readFloatLE(i * 4);
    return new GptModel(config, params);
  }

  sha256(): string {
    return createHash('sha256').update(this.toBytes()).digest('hex');
  }
}
