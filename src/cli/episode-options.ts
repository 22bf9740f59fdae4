import type { Command } from 'commander';
import { collectDefaults } from '../collect/collect-settings.js';
import { parseMaxSeqLen, parseMaxTokens, parseMaxTurns, parseOnMaxTokens, parseSeed, parseTemperature } from './flag-parsers.js';

/** The options that shape an episode (turns, budget, sampling), worded once for every command that runs one, with the library's defaults. */
export function withEpisodeOptions(command: Command): Command {
  return command
    .option('--max-turns <n>', 'turns per episode (NeMo RL: unbounded; 999999 is its default)', parseMaxTurns, collectDefaults.maxTurns)
    .option('--max-seq-len <n>', "token budget per episode (default: the model's context length)", parseMaxSeqLen)
    .option('--max-tokens <n>', 'tokens per generation unless the row says otherwise', parseMaxTokens, collectDefaults.sampling.max_tokens)
    .option(
      '--on-max-tokens <what>',
      'a generation cut by max_tokens: continue (the environment scores it and the episode goes on unless it ends it, as NeMo RL) or end (scored, then the episode ends as max-tokens)',
      parseOnMaxTokens,
      collectDefaults.onMaxTokens,
    )
    .option('--temperature <t>', 'sampling temperature unless the row says otherwise', parseTemperature, collectDefaults.sampling.temperature)
    .option('--seed <n>', 'base seed; each rollout and turn derives its own', parseSeed);
}
