import type { ArithmeticTask } from './arithmetic.js';

/** Which small-product tasks: the ones to train on, or the held-out ones a training run never sees. */
export type SmallProductSplit = 'train' | 'held-out';

/** The factors a 2-digit number is multiplied by. */
const FACTORS = { low: 2, high: 12 } as const;

/**
 * About one pair in five is held out: two per factor and tens digit. The tens digit is in the rule so
 * that held-out products end in every digit as often as trained ones do: the model miscopies some
 * last digits more than others, and a rule on `a + 3b` alone left only products ≡ 0, 2 or 3 (mod 5)
 * held out (none ending in 1, 4, 6 or 9), a split whose accuracy training could not be compared on.
 */
const isHeldOut = (a: number, b: number) => (Math.floor(a / 10) + a + 3 * b) % 5 === 0;

/**
 * A task family the embedded model is weak at, for RL: products of a 2-digit number by 2–12
 * (`47*6`). The model calls its calculator for them, reads `{"result":282}`, and then miscopies the
 * result most of the time (`280`): measured on the held-out split at temperature 1 with two attempts,
 * 19% of rollouts are right and 48% of tasks have one right rollout in four (pass@4), so a GRPO
 * group has rewards that differ. All 990 pairs, in a fixed order; `held-out` is 198 of them.
 */
export function smallProductTasks(split: SmallProductSplit): ArithmeticTask[] {
  const tasks: ArithmeticTask[] = [];
  for (let a = 10; a <= 99; a++) {
    for (let b = FACTORS.low; b <= FACTORS.high; b++) {
      if (isHeldOut(a, b) !== (split === 'held-out')) continue;
      tasks.push({ problem: `${a}*${b}`, answer: a * b, max_attempts: 2, max_tool_calls: 3 });
    }
  }
  return tasks;
}
