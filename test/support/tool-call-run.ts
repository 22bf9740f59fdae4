import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collect } from '../../src/collect/collect-run.js';
import { SamplingParams } from '../../src/core/index.js';
import type { Policy } from '../../src/policy/index.js';
import type { Responder } from '../../src/testing/index.js';
import { TemplateRenderer } from '../../src/tokens/index.js';
import { qwen3Template, qwen3Tokenizer } from './qwen3.js';

/** The model: a calc tool call for the question's sum, then its result as the answer. */
export const calculator: Responder = ({ text }) => {
  const problem = /what is (\d+\+\d+)\?/.exec(text)![1]!;
  return text.includes('<result>') ? /<result>(\d+)<\/result>/.exec(text)![1]! : `I will use <calc>${problem}</calc>`;
};

/** An input line of the arithmetic environment: "what is PROBLEM?" with `padding` after it, and its answer. */
export function arithmeticTaskLine(problem: string, answer: number, padding = ''): string {
  return JSON.stringify({
    responses_create_params: { input: [{ role: 'user', content: `what is ${problem}?${padding}` }] },
    agent_ref: { name: 'arithmetic' },
    problem,
    answer,
  });
}

/**
 * Collects into `output` two arithmetic tasks answered right after a tool call (with `calculator`
 * serving `policy`), and a third whose prompt alone is longer than max_seq_len (a zero-turn row).
 */
export async function collectToolCallTasks(policy: Policy, dir: string, output: string): Promise<void> {
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, `${[arithmeticTaskLine('1+2', 3), arithmeticTaskLine('4+5', 9), arithmeticTaskLine('2+2', 4, ' please'.repeat(150))].join('\n')}\n`);
  await collect({
    input,
    output,
    concurrency: 1,
    policy,
    renderer: new TemplateRenderer(await qwen3Tokenizer(), await qwen3Template()),
    maxSeqLen: 128,
    maxTurns: 2,
    sampling: SamplingParams.parse({ max_tokens: 32, seed: 1 }),
  });
}
