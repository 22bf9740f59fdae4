import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CollectOptions } from '../../src/collect/collect-run.js';
import { SamplingParams } from '../../src/core/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';

// A small collection of sums for the collect specs: rows, a scripted policy that adds, and the options to run them.

const tokenizer = new CharTokenizer();

/** An arithmetic row asking for a+b. */
export const sumRow = (a: number, b: number) =>
  JSON.stringify({
    responses_create_params: { input: [{ role: 'user', content: `what is ${a}+${b}?` }] },
    agent_ref: { name: 'arithmetic' },
    problem: `${a}+${b}`,
    answer: a + b,
  });

export interface AdderOptions {
  /** Fails every prompt that mentions this text (its rollouts end as failures). */
  failOn?: string;
  /** Each reply says it was asked, then waits for the gate to open. */
  gate?: { asked: () => void; open: Promise<void> };
}

/** Answers every sum right, unless told to fail or to wait. */
export function adder(options: AdderOptions = {}): ScriptedPolicy {
  return new ScriptedPolicy({
    tokenizer,
    script: async (request) => {
      const question = request.messages[0]!.content;
      options.gate?.asked();
      await options.gate?.open;
      if (options.failOn !== undefined && question.includes(options.failOn)) return { error: new Error('upstream 503') };
      const [a, b] = /(\d+)\+(\d+)/.exec(question)!.slice(1).map(Number);
      return { text: String(a! + b!) };
    },
  });
}

/** `rows` written to a new folder's `in.jsonl`, with `out.jsonl` as the output; `options` runs them two rollouts a row through `policy`. */
export function sumCollection(rows: readonly string[], policy: () => ScriptedPolicy = () => adder()) {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-sums-'));
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, `${rows.join('\n')}\n`);
  const output = join(dir, 'out.jsonl');
  const options = (extra: Partial<CollectOptions> = {}): CollectOptions => ({
    input,
    output,
    concurrency: 4,
    policy: policy(),
    renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
    maxSeqLen: 512,
    maxTurns: 3,
    sampling: SamplingParams.parse({ max_tokens: 8 }),
    numRepeats: 2,
    ...extra,
  });
  return { dir, input, output, options };
}
