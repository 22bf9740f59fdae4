import { readFileSync, writeFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { GptModel } from '../src/policy/embedded/gpt-model.js';
import type { GptConfig } from '../src/policy/embedded/gpt-config.js';
import { AdamW } from '../src/policy/embedded/training/adamw.js';
import { JinjaChatTemplate, loadHfTokenizer, TemplateRenderer } from '../src/tokens/index.js';
import { createSeededRandom } from '../src/util/seeded-random.js';
import { additionAccuracy, heldOutAdditions } from './embedded/evaluate-embedded.js';
import { syntheticSequences } from './embedded/synthetic-episodes.js';

/**
 * `npm run train:embedded`: trains the embedded model from scratch on synthetic arithmetic episodes,
 * data-parallel on two worker threads, with a fixed seed. Run once by a developer (tens of minutes on
 * 2 cores), never in CI; writes assets/embedded/model.bin and model.json, checkpointing as it goes.
 */
const SEED = 20261121;
const STEPS = Number(process.env.GYMNAST_TRAIN_STEPS ?? 3000);
const BATCH = 48;
const EPISODES = 60_000;
const WORKERS = 2;
const assets = new URL('../assets/embedded/', import.meta.url).pathname;
const schedule = { peak: Number(process.env.GYMNAST_TRAIN_PEAK_LR ?? 3e-3), warmup: 100, floor: 0.1 };
/** Continue from earlier weights (a fine-tuning pass) instead of a fresh initialization. */
const startFrom = process.env.GYMNAST_TRAIN_FROM;

const tokenizer = await loadHfTokenizer(assets);
const renderer = new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config));
const config: GptConfig = { vocab_size: 50, context_length: 128, channels: 64, layers: 2, heads: 4 };
const random = createSeededRandom(SEED);

log(`generating ${EPISODES} synthetic episodes`);
const sequences = await syntheticSequences(tokenizer, renderer, EPISODES, SEED);
const offsets = new Int32Array(sequences.length + 1);
sequences.forEach((sequence, i) => (offsets[i + 1] = offsets[i]! + sequence.tokens.length));
const tokens = new Int32Array(offsets[sequences.length]!);
const weights = new Float32Array(offsets[sequences.length]!);
sequences.forEach((sequence, i) => {
  tokens.set(sequence.tokens, offsets[i]!);
  weights.set(sequence.weights, offsets[i]!);
});
log(`${tokens.length} tokens, mean length ${(tokens.length / sequences.length).toFixed(1)}, longest ${Math.max(...sequences.map((s) => s.tokens.length))}`);

const paramsBuffer = new SharedArrayBuffer(GptModel.initialize(config, () => 0).params.length * 4);
const model = new GptModel(config, new Float32Array(paramsBuffer));
model.params.set(startFrom ? GptModel.fromBytes(config, readFileSync(startFrom)).params : GptModel.initialize(config, () => random.next()).params);
if (startFrom) log(`continuing from ${startFrom}`);
const gradBuffers = Array.from({ length: WORKERS }, () => new SharedArrayBuffer(model.params.length * 4));
const workers = gradBuffers.map(
  (grads) => new Worker(new URL('./embedded/train-worker.js', import.meta.url), { workerData: { config, params: paramsBuffer, grads, tokens, weights, offsets } }),
);
const optimizer = new AdamW(model.params.length);
const heldOut = heldOutAdditions();
const grads = new Float32Array(model.params.length);
const started = Date.now();
let best = -1;

for (let step = 1; step <= STEPS; step++) {
  const batch = Array.from({ length: BATCH }, () => random.int(0, sequences.length - 1));
  const losses = await Promise.all(workers.map((worker, w) => run(worker, batch.filter((_, i) => i % WORKERS === w))));
  const learned = batch.reduce((total, index) => total + sequences[index]!.weights.reduce((sum, value) => sum + value, 0), 0);
  grads.fill(0);
  for (const buffer of gradBuffers) {
    const part = new Float32Array(buffer);
    for (let i = 0; i < grads.length; i++) grads[i] = grads[i]! + part[i]! / learned;
  }
  clipNorm(grads, 1);
  optimizer.update(model.params, grads, { learningRate: learningRate(step), beta1: 0.9, beta2: 0.95, epsilon: 1e-8, weightDecay: 0 });
  if (step % 50 === 0) log(`step ${step}/${STEPS} loss ${(losses.reduce((a, b) => a + b, 0) / learned).toFixed(4)} lr ${learningRate(step).toExponential(2)} ${((Date.now() - started) / step).toFixed(0)} ms/step`);
  if (step % 250 === 0 || step === STEPS) {
    const accuracy = additionAccuracy(model, tokenizer, renderer, heldOut);
    log(`step ${step}: held-out addition greedy exact match ${(accuracy * 100).toFixed(1)}%`);
    if (accuracy >= best) {
      best = accuracy;
      save(model, { step, heldOutAddition: accuracy, minutes: (Date.now() - started) / 60_000 });
    }
  }
}
await Promise.all(workers.map((worker) => worker.terminate()));
log(`done; best held-out addition accuracy ${(best * 100).toFixed(1)}%`);

function run(worker: Worker, indices: number[]): Promise<number> {
  return new Promise((resolve) => {
    worker.once('message', resolve);
    worker.postMessage(indices);
  });
}

function learningRate(step: number): number {
  if (step <= schedule.warmup) return (schedule.peak * step) / schedule.warmup;
  const progress = (step - schedule.warmup) / Math.max(1, STEPS - schedule.warmup);
  return schedule.peak * (schedule.floor + (1 - schedule.floor) * 0.5 * (1 + Math.cos(Math.PI * progress)));
}

function clipNorm(values: Float32Array, maxNorm: number): void {
  let sum = 0;
  for (const value of values) sum += value * value;
  const norm = Math.sqrt(sum);
  if (norm <= maxNorm) return;
  for (let i = 0; i < values.length; i++) values[i] = (values[i]! * maxNorm) / norm;
}

function save(trained: GptModel, progress: { step: number; heldOutAddition: number; minutes: number }): void {
  const copy = new GptModel(config, Float32Array.from(trained.params));
  writeFileSync(`${assets}model.bin`, copy.toBytes());
  const manifest = {
    name: 'gymnast-tiny-arith',
    config,
    parameters: copy.params.length,
    weights: { file: 'model.bin', format: 'float32-le', sha256: copy.sha256() },
    tokenizer: { file: 'tokenizer.json', config: 'tokenizer_config.json', vocab_size: config.vocab_size, specials: ['<|pad|>', '<|user|>', '<|assistant|>', '<|end|>'] },
    logprobs: 'raw: log-softmax of the logits before temperature, top-k and top-p',
    training: { seed: SEED, steps: progress.step, ...(startFrom ? { continued_from: startFrom } : {}), batch: BATCH, optimizer: 'AdamW(0.9, 0.95), grad clip 1.0', learning_rate: schedule, minutes: Number(progress.minutes.toFixed(1)), workers: WORKERS },
    data: { recipe: 'synthetic arithmetic episodes through the engine: 55% 2-digit sums answered directly, 25% products and 20% 3-term sums through <calc>; 15% (sums) / 12% (after a tool result) wrong first answers, never trained on, followed by the right one', episodes: EPISODES, held_out: 'every problem whose first two operands have (a + 7b) % 10 == 0' },
    held_out: { addition_greedy_exact_match: progress.heldOutAddition },
  };
  writeFileSync(`${assets}model.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  log(`saved checkpoint at step ${progress.step}`);
}

function log(message: string): void {
  process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
