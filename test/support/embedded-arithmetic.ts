import { EpisodeTask, SamplingParams, type EpisodeRecord } from '../../src/core/index.js';
import { runGroups } from '../../src/engine/index.js';
import { arithmeticEnvironment, arithmeticPrompt } from '../../src/environments/index.js';
import { evaluateArithmetic } from '../../src/environments/arithmetic-expression.js';
import { EmbeddedPolicy } from '../../src/policy/index.js';
import { JinjaChatTemplate, TemplateRenderer, type HfTokenizer } from '../../src/tokens/index.js';

let loaded: Promise<EmbeddedPolicy> | undefined;

/** The committed embedded model, loaded once per test process. */
export function embeddedPolicy(): Promise<EmbeddedPolicy> {
  loaded ??= EmbeddedPolicy.load();
  return loaded;
}

/** Operand pairs the training data never contained (the trainer's held-out rule). */
export const heldOut = (a: number, b: number) => (a + 7 * b) % 10 === 0;

export function heldOutPairs(second: [number, number]): [number, number][] {
  const pairs: [number, number][] = [];
  for (let a = 10; a <= 99; a++) for (let b = second[0]; b <= second[1]; b++) if (heldOut(a, b)) pairs.push([a, b]);
  return pairs;
}

/** Runs arithmetic episodes on the embedded model through the engine, exactly as `gymnast collect` will. */
export async function runArithmetic(problems: readonly string[], sampling: Partial<SamplingParams>, groupSize = 1): Promise<EpisodeRecord[]> {
  const policy = await embeddedPolicy();
  const tokenizer = policy.tokenizer as HfTokenizer;
  const renderer = new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config), { drift: 'strict' });
  const tasks = problems.map((problem, index) =>
    EpisodeTask.parse({ id: problem, index, messages: arithmeticPrompt({ problem }), data: { problem, answer: evaluateArithmetic(problem) } }),
  );
  const options = {
    policy,
    environment: arithmeticEnvironment(),
    renderer,
    maxTurns: 4,
    maxSeqLen: policy.maxModelLen,
    sampling: SamplingParams.parse({ max_tokens: 96, ...sampling }),
  };
  const records: EpisodeRecord[] = [];
  for await (const group of runGroups(tasks, options, { groupSize, schedule: { kind: 'async', concurrency: 64 } })) records.push(...group.records);
  return records;
}
