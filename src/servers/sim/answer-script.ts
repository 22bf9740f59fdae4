import type { SeededRandom } from '../../util/seeded-random.js';

/** The prompt a reply answers, as text (decoded) and as the ids sent. */
export interface AnswerPrompt {
  text: string;
  ids: readonly number[];
}

/**
 * What the simulated model answers, so an environment can score its replies: the text that ends the
 * reply (before the end-of-sequence token), or undefined for a reply of filler words only. `random` is
 * the request's own seeded source: the same seed and prompt give the same answer.
 */
export type AnswerScript = (prompt: AnswerPrompt, random: SeededRandom) => string | undefined;

/**
 * Answers right with probability `p`: `solve` reads the right answer off the prompt's text (undefined
 * when it cannot, and the reply has no answer), and a wrong one is the right one off by 1 to 9 when it
 * is a number, else `not <answer>`. `format` writes it as the environment parses it (`\boxed{…}`, …).
 */
export function correctWithProbability(
  p: number,
  solve: (promptText: string) => string | undefined,
  format: (answer: string) => string = (answer) => answer,
): AnswerScript {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`p must be a probability from 0 to 1, got ${p}`);
  return (prompt, random) => {
    const right = solve(prompt.text);
    if (right === undefined) return undefined;
    return format(random.next() < p ? right : wrongAnswer(right, random));
  };
}

function wrongAnswer(right: string, random: SeededRandom): string {
  const number = Number(right);
  return right.trim() !== '' && Number.isFinite(number) ? String(number + random.int(1, 9)) : `not ${right}`;
}
