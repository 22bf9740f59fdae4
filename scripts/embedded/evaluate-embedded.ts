import { SamplingParams, type Message } from '../../src/core/index.js';
import { ARITHMETIC_FORMAT, arithmeticPrompt, calculate, hermesToolCallParser } from '../../src/environments/index.js';
import { evaluateArithmetic } from '../../src/environments/arithmetic-expression.js';
import { EmbeddedPolicy } from '../../src/policy/embedded/embedded-policy.js';
import type { GptModel } from '../../src/policy/embedded/gpt-model.js';
import type { ChatTemplate, HfTokenizer } from '../../src/tokens/index.js';
import { createSeededRandom } from '../../src/util/seeded-random.js';
import { chatText } from './chat-text.js';
import { isHeldOutAddition } from './synthetic-episodes.js';

/** Every held-out 2-digit addition (a + 7b ≡ 0 mod 10), in a fixed order. */
export function heldOutAdditions(): string[] {
  const problems: string[] = [];
  for (let a = 10; a <= 99; a++) for (let b = 10; b <= 99; b++) if (isHeldOutAddition(a, b)) problems.push(`${a}+${b}`);
  return problems;
}

/** Held-out problems the model should call the calculator for: every 4th held-out product (every one by a single digit), and as many 3-term sums. */
export function heldOutToolProblems(): string[] {
  const products: string[] = [];
  for (let a = 10; a <= 99; a++) for (let b = 2; b <= 99; b++) if (isHeldOutAddition(a, b)) products.push(`${a}*${b}`);
  const chosen = products.filter((product, i) => i % 4 === 0 || /\*\d$/.test(product));
  const random = createSeededRandom(7);
  const sums = heldOutAdditions()
    .filter((_, i) => i % 4 === 0)
    .map((sum) => `${sum}+${random.int(100, 999)}`);
  return [...chosen, ...sums];
}

/** Plain chat prompts from another seed than training's. */
export function heldOutChat(count: number): string[] {
  const random = createSeededRandom(424242);
  return Array.from({ length: count }, () => chatText(random));
}

export interface Skills {
  /** Greedy first answers to held-out 2-digit sums that are right. */
  addition: number;
  /** Greedy first turns on held-out products and 3-term sums that are one well-formed calculator call (Hermes JSON, `expression` a string) ending with the end token. */
  wellFormedToolCall: number;
  /** …and whose expression is exactly the problem. */
  exactToolCall: number;
  /** Greedy answers, after a right call and its `{"result": N}`, that are N. */
  answersToolResult: number;
  /** Greedy replies to held-out plain chat that end with the end token (not at max_tokens). */
  chatStops: number;
}

/** The model's skills on held-out prompts, each its first turn decoded greedily (concurrently, as the policy batches). */
export async function measureSkills(model: GptModel, tokenizer: HfTokenizer, template: ChatTemplate, sizes: { chat: number } = { chat: 200 }): Promise<Skills> {
  const policy = new EmbeddedPolicy(model, tokenizer);
  const firstTurn = (messages: Message[], maxTokens: number) =>
    policy.generate(
      {
        session_id: 'evaluate',
        prompt_token_ids: tokenizer.encode(template.render(messages, { addGenerationPrompt: true })),
        messages,
        sampling: SamplingParams.parse({ greedy: true, max_tokens: maxTokens }),
        stop_strings: [],
        stop_token_ids: [],
      },
      new AbortController().signal,
    );
  const end = tokenizer.stopTokenIds[0]!;
  const withoutEnd = (ids: number[]) => tokenizer.decode(ids.at(-1) === end ? ids.slice(0, -1) : ids);

  const additions = heldOutAdditions();
  const sums = await Promise.all(additions.map((problem) => firstTurn(arithmeticPrompt({ problem }), 8)));
  const addition = sums.filter((result, i) => withoutEnd(result.token_ids) === String(evaluateArithmetic(additions[i]!))).length / additions.length;

  const toolProblems = heldOutToolProblems();
  const calls = await Promise.all(toolProblems.map((problem) => firstTurn(arithmeticPrompt({ problem }), 96)));
  const read = calls.map((result) => ({ ended: result.token_ids.at(-1) === end, blocks: hermesToolCallParser.parse(withoutEnd(result.token_ids), 0).blocks }));
  const wellFormed = read.map(({ ended, blocks }) => {
    const [block] = blocks;
    return ended && blocks.length === 1 && 'call' in block! && block.call.name === 'calculator' && typeof block.call.arguments.expression === 'string'
      ? block.call.arguments.expression
      : undefined;
  });

  const results = await Promise.all(
    toolProblems.map((problem) => {
      const result = JSON.stringify(calculate({ expression: problem }));
      return firstTurn(
        [
          ...arithmeticPrompt({ problem }),
          { role: 'assistant', content: ARITHMETIC_FORMAT.toolCall(problem) },
          { role: 'tool', content: result, tool_call_id: 'call_0_0' },
        ],
        12,
      );
    }),
  );
  const answersToolResult =
    results.filter((result, i) => withoutEnd(result.token_ids) === String(evaluateArithmetic(toolProblems[i]!))).length / toolProblems.length;

  const chats = heldOutChat(sizes.chat);
  const replies = await Promise.all(chats.map((content) => firstTurn([{ role: 'user', content }], 64)));
  await policy.close();
  return {
    addition,
    wellFormedToolCall: wellFormed.filter((expression) => expression !== undefined).length / toolProblems.length,
    exactToolCall: wellFormed.filter((expression, i) => expression === toolProblems[i]).length / toolProblems.length,
    answersToolResult,
    chatStops: replies.filter((result) => result.finish_reason.unified === 'stop').length / chats.length,
  };
}
