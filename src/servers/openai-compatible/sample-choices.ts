import { mixSeed } from '../../util/seeded-random.js';
import type { Generation } from './generator.js';
import type { RouteContext } from './route.js';
import { checkRun, sample, type RunOptions } from './sampling.js';
import type { ChoiceStep } from './stream-chunks.js';

/**
 * The seed of choice `index` of `n`: the first keeps the request's seed (so n = 1 is unchanged), the
 * others get seeds derived from it, so a seeded request is reproducible and its choices differ.
 */
const choiceSeed = (seed: number | undefined, index: number) => (seed === undefined || index === 0 ? seed : mixSeed(seed, index));

/**
 * The `n` choices of each prompt, sampled one after another (the generator is one model: running them at
 * once would not be faster), as steps: what a stream sends as it comes and an unstreamed answer waits
 * for. As vLLM orders them: the n choices of the first prompt, then those of the next. Every prompt is
 * checked before any is sampled.
 */
export function sampleChoices(
  context: RouteContext,
  prompts: number[][],
  options: RunOptions,
  n: number,
  signal: AbortSignal,
): AsyncGenerator<ChoiceStep, void, undefined> {
  for (const promptIds of prompts) checkRun(context, promptIds, options);
  return (async function* () {
    for (const [p, promptIds] of prompts.entries()) {
      for (let j = 0; j < n; j++) {
        for await (const step of sample(context, promptIds, { ...options, seed: choiceSeed(options.seed, j) }, signal)) yield { index: p * n + j, ...step };
      }
    }
  })();
}

/** Every choice's finished generation, in order: the steps an unstreamed answer waits for. */
export async function generations(steps: AsyncIterable<ChoiceStep>): Promise<Generation[]> {
  const finished: Generation[] = [];
  for await (const step of steps) if (step.generation) finished.push(step.generation);
  return finished;
}
