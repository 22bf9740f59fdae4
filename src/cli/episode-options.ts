import type { Command } from 'commander';
import { parseMaxSeqLen, parseMaxTokens, parseMaxTurns, parseSeed, parseTemperature } from './flag-parsers.js';

/** The options that shape an episode (turns, budget, sampling), worded once for every command that runs one. */
export function withEpisodeOptions(command: Command): Command {
  return command
    .option('--max-turns <n>', 'turns per episode', parseMaxTurns, 8)
    .option('--max-seq-len <n>', "token budget per episode (default: the model's context length)", parseMaxSeqLen)
    .option('--max-tokens <n>', 'tokens per generation unless the row says otherwise', parseMaxTokens, 256)
    .option('--temperature <t>', 'sampling temperature unless the row says otherwise', parseTemperature, 1)
    .option('--seed <n>', 'base seed; each rollout and turn derives its own', parseSeed);
}
