import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { GptModel } from '../src/policy/embedded/gpt-model.js';
import type { GptConfig } from '../src/policy/embedded/gpt-config.js';
import { AdamW } from '../src/policy/embedded/training/adamw.js';
import { JinjaChatTemplate, loadHfTokenizer, TemplateRenderer } from '../src/tokens/index.js';
import { createSeededRandom } from '../src/util/seeded-random.js';
import { measureSkills, type Skills } from './embedded/evaluate-embedded.js';
import { syntheticSequences } from './embedded/synthetic-episodes.js';

/**
 * `npm run train:embedded`: trains the embedded model on synthetic episodes, data-parallel on two
 * worker threads, with a fixed seed. Run by a developer, never in CI; writes assets/embedded/model.bin
 * and model.json, checkpointing as it goes. From scratch by default; `GYMNAST_TRAIN_FROM=DIR` continues
 * from an earlier model's folder (model.json, model.bin, tokenizer.json), grown to this vocabulary and
 * context: its tokens keep their rows (a new capital letter starts as its small one), new ones start
 * fresh, and so do positions past its context.
 */
const SEED = 20261121;
const STEPS = Number(process.env.GYMNAST_TRAIN_STEPS ?? 3000);
const BATCH = 32;
const SEQUENCES = 40_000;
const WORKERS = 2;
const assets = new URL('../assets/embedded/', import.meta.url).pathname;
const schedule = { peak: Number(process.env.GYMNAST_TRAIN_PEAK_LR ?? 3e-3), warmup: 50, floor: 0.1 };
const startFrom = process.env.GYMNAST_TRAIN_FROM;

const tokenizer = await loadHfTokenizer(assets, { cacheDirectory: false });
const template = JinjaChatTemplate.fromConfig(tokenizer.config);
const renderer = new TemplateRenderer(tokenizer, template);
const config: GptConfig = { vocab_size: tokenizer.vocabSize, context_length: 256, channels: 64, layers: 2, heads: 4 };
const random = createSeededRandom(SEED);

log(`generating ${SEQUENCES} synthetic sequences`);
const sequences = await syntheticSequences(tokenizer, renderer, template, SEQUENCES, SEED);
const offsets = new Int32Array(sequences.length + 1);
sequences.forEach((sequence, i) => (offsets[i + 1] = offsets[i]! + sequence.tokens.length));
const tokens = new Int32Array(offsets[sequences.length]!);
const weights = new Float32Array(offsets[sequences.length]!);
sequences.forEach((sequence, i) => {
  tokens.set(sequence.tokens, offsets[i]!);
  weights.set(sequence.weights, offsets[i]!);
});
log(`${tokens.length} tokens, mean length ${(tokens.length / sequences.length).toFixed(1)}, longest ${Math.max(...sequences.map((s) => s.tokens.length))}`);

const paramsBuffer = new SharedArrayBuffer(new GptModel(config).params.length * 4);
const model = new GptModel(config, new Float32Array(paramsBuffer));
const initial = GptModel.initialize(config, () => random.next());
model.params.set(startFrom ? grownFrom(startFrom, initial).params : initial.params);
if (startFrom) log(`continuing from ${startFrom}`);
const gradBuffers = Array.from({ length: WORKERS }, () => new SharedArrayBuffer(model.params.length * 4));
const workers = gradBuffers.map(
  (grads) =>
    new Worker(new URL('./embedded/train-worker.js', import.meta.url), { workerData: { config, params: paramsBuffer, grads, tokens, weights, offsets } }),
);
const optimizer = new AdamW(model.params.length);
const grads = new Float32Array(model.params.length);
const started = Date.now();
let best = -1;

for (let step = 1; step <= STEPS; step++) {
  const batch = Array.from({ length: BATCH }, () => random.int(0, sequences.length - 1));
  const losses = await Promise.all(
    workers.map((worker, w) =>
      run(
        worker,
        batch.filter((_, i) => i % WORKERS === w),
      ),
    ),
  );
  const learned = batch.reduce((total, index) => total + sequences[index]!.weights.reduce((sum, value) => sum + value, 0), 0);
  grads.fill(0);
  for (const buffer of gradBuffers) {
    const part = new Float32Array(buffer);
    for (let i = 0; i < grads.length; i++) grads[i] = grads[i]! + part[i]! / learned;
  }
  clipNorm(grads, 1);
  optimizer.update(model.params, grads, { learningRate: learningRate(step), beta1: 0.9, beta2: 0.95, epsilon: 1e-8, weightDecay: 0 });
  if (step % 25 === 0)
    log(
      `step ${step}/${STEPS} loss ${(losses.reduce((a, b) => a + b, 0) / learned).toFixed(4)} lr ${learningRate(step).toExponential(2)} ${((Date.now() - started) / step).toFixed(0)} ms/step`,
    );
  if (step % 200 === 0 || step === STEPS) {
    const skills = await measureSkills(model, tokenizer, template);
    const score = (skills.addition + skills.exactToolCall + skills.answersToolResult + skills.chatStops) / 4;
    log(`step ${step}: ${describe(skills)}`);
    if (score >= best) {
      best = score;
      save(model, { step, skills, minutes: (Date.now() - started) / 60_000 });
    }
  }
}
await Promise.all(workers.map((worker) => worker.terminate()));
log(`done; best mean skill ${(best * 100).toFixed(1)}%`);

/** An earlier model's weights in this config's layout (see the header): same channels, layers and heads. */
function grownFrom(directory: string, fresh: GptModel): GptModel {
  const manifest = JSON.parse(readFileSync(join(directory, 'model.json'), 'utf8')) as { config: GptConfig; weights: { file: string } };
  const earlier = GptModel.fromBytes(manifest.config, readFileSync(join(directory, manifest.weights.file)));
  const { channels: C, layers, heads } = manifest.config;
  if (C !== config.channels || layers !== config.layers || heads !== config.heads)
    throw new Error(
      `${directory} is ${layers} layers × ${C} channels × ${heads} heads; this config is ${config.layers} × ${config.channels} × ${config.heads}`,
    );
  const earlierVocabulary = (JSON.parse(readFileSync(join(directory, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab;
  const grown = new GptModel(config, Float32Array.from(fresh.params));
  const vocabulary = (JSON.parse(readFileSync(`${assets}tokenizer.json`, 'utf8')) as { model: { vocab: Record<string, number> } }).model.vocab;
  const row = (model: GptModel, table: number, index: number) => model.params.subarray(table + index * C, table + (index + 1) * C);
  for (const [token, id] of Object.entries(vocabulary)) {
    const source = earlierVocabulary[token] ?? earlierVocabulary[token.toLowerCase()];
    if (source !== undefined) row(grown, grown.layout.wte, id).set(row(earlier, earlier.layout.wte, source));
  }
  for (let position = 0; position < Math.min(earlier.config.context_length, config.context_length); position++) {
    row(grown, grown.layout.wpe, position).set(row(earlier, earlier.layout.wpe, position));
  }
  // Everything after the embeddings has the same shape in both: the blocks and the final layer norm.
  grown.params.set(earlier.params.subarray(earlier.layout.layers[0]!.ln1w), grown.layout.layers[0]!.ln1w);
  return grown;
}

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

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

function describe(skills: Skills): string {
  return `held-out greedy: sums right ${percent(skills.addition)}, well-formed calculator calls ${percent(skills.wellFormedToolCall)} (exact ${percent(skills.exactToolCall)}), answers with the tool's result ${percent(skills.answersToolResult)}, chat ends at the end token ${percent(skills.chatStops)}`;
}

function save(trained: GptModel, progress: { step: number; skills: Skills; minutes: number }): void {
  const copy = new GptModel(config, Float32Array.from(trained.params));
  writeFileSync(`${assets}model.bin`, copy.toBytes());
  const manifest = {
    name: 'gymnast-tiny-arith',
    config,
    parameters: copy.params.length,
    weights: { file: 'model.bin', format: 'float32-le', sha256: copy.sha256() },
    tokenizer: {
      file: 'tokenizer.json',
      config: 'tokenizer_config.json',
      vocab_size: config.vocab_size,
      specials: ['<|pad|>', '<|user|>', '<|assistant|>', '<|end|>', '<|system|>', '<|unk|>'],
      added: ['<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>'],
    },
    logprobs: 'raw: log-softmax of the logits before temperature, top-k and top-p',
    training: {
      seed: SEED,
      ...(startFrom ? { continued_from: startFrom } : {}),
      passes: [{ steps: progress.step, peak_learning_rate: schedule.peak, minutes: Number(progress.minutes.toFixed(1)), data: 'as below' }],
      batch: BATCH,
      optimizer: 'AdamW(0.9, 0.95), grad clip 1.0',
      learning_rate: { warmup: schedule.warmup, floor: schedule.floor, schedule: 'cosine from the peak to floor × peak, per pass' },
      minutes: Number(progress.minutes.toFixed(1)),
      workers: WORKERS,
    },
    data: {
      recipe:
        'synthetic sequences: 63% arithmetic episodes through the engine (45% 2-digit sums answered directly, 32% products (a third by one digit) and 23% 3-term sums through a calculator <tool_call> answered {"result": N}; 15% (sums) / 12% (after a tool result) wrong first answers, never trained on, followed by the right one; 20% of questions capitalized, 1 in 8 after a system prompt), 25% calculator round trips whose tool answers in spaced JSON or a bare number, 70% of them a number other than the value (the answer copies the tool), 12% plain chat answered "I can only do arithmetic."; answer tokens weigh 4× a tool call\'s',
      sequences: SEQUENCES,
      held_out: 'every problem whose first two operands have (a + 7b) % 10 == 0; chat prompts from another seed',
    },
    held_out: {
      addition_greedy_exact_match: progress.skills.addition,
      calculator_calls_well_formed: progress.skills.wellFormedToolCall,
      calculator_calls_exact: progress.skills.exactToolCall,
      answers_with_the_tool_result: progress.skills.answersToolResult,
      chat_ends_at_end_token: progress.skills.chatStops,
      measured_with:
        'scripts/embedded/evaluate-embedded.ts, greedy first turns: 810 held-out sums, 469 held-out products (every 4th, every one by a single digit) and 3-term sums, 200 chat prompts from another seed',
    },
  };
  writeFileSync(`${assets}model.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  log(`saved checkpoint at step ${progress.step}`);
}

function log(message: string): void {
  process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
