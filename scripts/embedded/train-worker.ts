import { parentPort, workerData } from 'node:worker_threads';
import { GptModel } from '../../src/policy/embedded/gpt-model.js';
import { accumulateSequenceGradients } from '../../src/policy/embedded/training/sequence-gradients.js';
import type { GptConfig } from '../../src/policy/embedded/gpt-config.js';

/** One data-parallel worker: reads the shared weights, writes its gradients into its own shared buffer. */
interface WorkerInput {
  config: GptConfig;
  params: SharedArrayBuffer;
  grads: SharedArrayBuffer;
  tokens: Int32Array;
  weights: Float32Array;
  offsets: Int32Array;
}

const input = workerData as WorkerInput;
const model = new GptModel(input.config, new Float32Array(input.params));
const grads = new Float32Array(input.grads);

parentPort!.on('message', (indices: number[]) => {
  grads.fill(0);
  let loss = 0;
  for (const index of indices) {
    const start = input.offsets[index]!;
    const end = input.offsets[index + 1]!;
    const tokens = Array.from(input.tokens.subarray(start, end));
    const weights = Array.from(input.weights.subarray(start, end - 1));
    loss += accumulateSequenceGradients(model, grads, { tokens, weights });
  }
  parentPort!.postMessage(loss);
});
