import { EpisodeTask, SamplingParams } from '../src/core/index.js';
import { runGroups } from '../src/engine/index.js';
import { arithmeticEnvironment, arithmeticPrompt, generateArithmeticTasks } from '../src/environments/index.js';
import { EmbeddedPolicy } from '../src/policy/index.js';
import { decodeStep, KvCache } from '../src/policy/embedded/gpt-decoder.js';
import { JinjaChatTemplate, TemplateRenderer, type HfTokenizer } from '../src/tokens/index.js';
import type { BenchLine, BenchResult } from './bench-result.js';

const POSITIONS = 120;

/** Decode tokens/s of the committed model: one sequence, then 32 sequences stepping together. */
export async function embeddedDecodeSpeed(): Promise<BenchLine[]> {
  const { model } = await EmbeddedPolicy.load();
  const decode = (batch: number) => {
    const caches = Array.from({ length: batch }, () => new KvCache(model));
    const tokens = Array.from({ length: batch }, (_, b) => 4 + (b % 40));
    const started = performance.now();
    for (let position = 0; position < POSITIONS; position++) decodeStep(model, tokens, caches);
    return (batch * POSITIONS) / ((performance.now() - started) / 1000);
  };
  decode(1);
  const single = decode(1);
  const batched = decode(32);
  return [
    {
      name: 'embedded model: decode tokens/s, one sequence',
      measured: { label: 'single sequence', value: single, unit: 'tok/s' },
      target: { label: 'target', value: 2000, unit: 'tok/s', source: "the embedded model's goal" },
      lowerIsBetter: false,
    },
    {
      name: 'embedded model: decode tokens/s, 32 sequences batched vs one',
      baseline: { label: 'single sequence', value: single, unit: 'tok/s' },
      measured: { label: 'batch of 32', value: batched, unit: 'tok/s' },
      lowerIsBetter: false,
    },
  ];
}

/** 256 arithmetic episodes through the engine on the embedded model: concurrency 64 against one at a time. */
export async function embeddedEpisodeThroughput(): Promise<BenchResult> {
  const policy = await EmbeddedPolicy.load();
  const tokenizer = policy.tokenizer as HfTokenizer;
  const renderer = new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config));
  const tasks = generateArithmeticTasks(256, 3).map((task, index) =>
    EpisodeTask.parse({ id: `t${index}`, index, messages: arithmeticPrompt(task), data: task }),
  );
  const options = {
    policy,
    environment: arithmeticEnvironment(),
    renderer,
    maxTurns: 4,
    maxSeqLen: policy.maxModelLen,
    sampling: SamplingParams.parse({ max_tokens: 96, seed: 1 }),
  };
  const time = async (concurrency: number) => {
    const started = performance.now();
    for await (const _ of runGroups(tasks, options, { groupSize: 1, schedule: { kind: 'async', concurrency } }));
    return tasks.length / ((performance.now() - started) / 1000);
  };
  const alone = await time(1);
  const together = await time(64);
  return {
    name: 'embedded model: arithmetic episodes/s through the engine, 64 concurrent vs one at a time',
    baseline: { label: 'one at a time', value: alone, unit: 'episodes/s' },
    measured: { label: '64 concurrent', value: together, unit: 'episodes/s' },
    lowerIsBetter: false,
  };
}
