import { z } from 'zod';

/** Dimensions of the embedded decoder-only transformer (pre-LN GPT, learned positions, tied embeddings). */
export const GptConfig = z.object({
  vocab_size: z.number().int().positive(),
  /** Longest sequence the model handles (learned position embeddings). */
  context_length: z.number().int().positive(),
  channels: z.number().int().positive(),
  layers: z.number().int().positive(),
  heads: z.number().int().positive(),
});
export type GptConfig = z.infer<typeof GptConfig>;

export interface LayerOffsets {
  ln1w: number;
  ln1b: number;
  qkvw: number;
  qkvb: number;
  projw: number;
  projb: number;
  ln2w: number;
  ln2b: number;
  fcw: number;
  fcb: number;
  fcprojw: number;
  fcprojb: number;
}

export interface ParameterLayout {
  wte: number;
  wpe: number;
  layers: LayerOffsets[];
  lnfw: number;
  lnfb: number;
  /** Total number of float32 parameters. */
  size: number;
}

/** Where each tensor lives in the one flat Float32Array of parameters (the file format's order). */
export function parameterLayout(config: GptConfig): ParameterLayout {
  const { vocab_size: V, context_length: T, channels: C, layers: L } = config;
  let offset = 0;
  const take = (size: number) => {
    const start = offset;
    offset += size;
    return start;
  };
  const wte = take(V * C);
  const wpe = take(T * C);
  const layers = Array.from({ length: L }, () => ({
    ln1w: take(C),
    ln1b: take(C),
    qkvw: take(3 * C * C),
    qkvb: take(3 * C),
    projw: take(C * C),
    projb: take(C),
    ln2w: take(C),
    ln2b: take(C),
    fcw: take(4 * C * C),
    fcb: take(4 * C),
    fcprojw: take(4 * C * C),
    fcprojb: take(C),
  }));
  const lnfw = take(C);
  const lnfb = take(C);
  return { wte, wpe, layers, lnfw, lnfb, size: offset };
}
