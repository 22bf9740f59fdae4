import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { syntheticRow, toLines, type SyntheticRollout } from './synthetic-rows.js';

/**
 * base: task 0 rewards 1, 0, 1, 1 (turns 1, 2, 1, 2); task 1 rewards 0, 0 and a failure; task 2
 * rewards 0.5, 0.25 (not 0/1: pass@k is the best reward); task 3 rewards 1, 1 (only in base).
 */
export const base: SyntheticRollout[] = [
  { task: 0, rollout: 0, reward: 1, turns: 1 },
  { task: 0, rollout: 1, reward: 0, turns: 2 },
  { task: 0, rollout: 2, reward: 1, turns: 1 },
  { task: 0, rollout: 3, reward: 1, turns: 2 },
  { task: 1, rollout: 0, reward: 0 },
  { task: 1, rollout: 1, reward: 0 },
  { task: 2, rollout: 0, reward: 0.5 },
  { task: 2, rollout: 1, reward: 0.25 },
  { task: 3, rollout: 0, reward: 1 },
  { task: 3, rollout: 1, reward: 1 },
];
export const baseFailures: SyntheticRollout[] = [{ task: 1, rollout: 2, failure: 'transport' }];
/** next: task 0 all 1 (+0.25), task 1 1 and 0 (+0.5), task 2 0.25 twice (−0.125), task 4 only in next. */
export const next: SyntheticRollout[] = [
  ...[0, 1, 2, 3].map((rollout) => ({ task: 0, rollout, reward: 1 })),
  { task: 1, rollout: 0, reward: 1, answer: 'it is two' },
  { task: 1, rollout: 1, reward: 0 },
  { task: 2, rollout: 0, reward: 0.25 },
  { task: 2, rollout: 1, reward: 0.25 },
  { task: 4, rollout: 0, reward: 0 },
];

/** Writes a run as `runs/NAME/rollouts.jsonl` (and its failures beside it), as users lay runs out. */
export function writeRun(runs: string, name: string, rows: readonly SyntheticRollout[], failures: readonly SyntheticRollout[] = []): void {
  mkdirSync(join(runs, name), { recursive: true });
  writeFileSync(join(runs, name, 'rollouts.jsonl'), toLines(rows.map(syntheticRow)));
  if (failures.length > 0) writeFileSync(join(runs, name, 'rollouts_failures.jsonl'), toLines(failures.map(syntheticRow)));
}
