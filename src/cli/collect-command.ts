import { Command } from 'commander';
import { assertFailuresWithin } from '../collect/failure-gate.js';
import { assertHealthy } from '../collect/health/health-gate.js';
import { ConfigError } from '../core/errors/config-error.js';
import { type CollectFlags, withCollectOptions } from './collect-flags.js';
import { collectSplit } from './collect-split.js';
import { mergeConfigFile } from './config-merge.js';
import { maxUnhealthyOf } from './max-unhealthy-option.js';
import { applyNemoGymOverrides } from './nemo-gym-overrides.js';
import { runCollect } from './run-collect.js';

/** `gymnast collect`: one input to one output, or with `--split` every dataset of a NeMo Gym config. */
export function collectCommand(): Command {
  return withCollectOptions(
    new Command('collect').description('run rollouts for every row of a NeMo Gym JSONL dataset and write them, with failures and aggregate metrics'),
  )
    .argument(
      '[overrides...]',
      "NeMo Gym's ng_collect_rollouts overrides, as their flags: +agent_name=… +input_jsonl_fpath=… +output_jsonl_fpath=… +limit=100 +num_repeats=4 +num_samples_in_parallel=10 +resume_from_cache=true +num_repeats_add_seed=true +prompt_config=… +responses_create_params.temperature=0.6",
    )
    .addHelpText('after', KEY_METRICS_HELP)
    .action(async (overrides: string[], _flags: CollectFlags, command: Command) => {
      for (const notice of applyNemoGymOverrides(command, overrides)) process.stderr.write(`[collect] ${notice}\n`);
      seedFieldNotice(command.opts<CollectFlags>());
      const { split, queue } = command.opts<CollectFlags>();
      if (split !== undefined && queue !== undefined)
        throw new ConfigError("--queue runs one input's rollouts on gymnast workers: it does not take a config's --split (its servers run here)");
      if (split !== undefined) return collectSplit(command, split);
      if (command.getOptionValue('reuseDataPreparation'))
        throw new ConfigError('--reuse-data-preparation reuses the datasets --split prepared: give --split (and --config) too, or drop it');
      const flags = await mergeConfigFile(command);
      if (flags.nemoGym !== undefined) throw new ConfigError('--nemo-gym runs the servers of a NeMo Gym config: it needs --config X.yaml --split NAME');
      const { failures, health } = await runCollect(flags, Object.keys(flags.agentServer));
      assertFailuresWithin([failures], flags.failOnError);
      if (health) assertHealthy([health], maxUnhealthyOf(flags));
    });
}

/** What the table printed at the end means, said once here rather than on every run. */
const KEY_METRICS_HELP = `
Key metrics (printed per agent at the end; rates in percent, also in *_aggregate_metrics.json, where
mean/terminated and the like stay fractions), k being --num-repeats, per score (accuracy, no_answer, …):
  pass@k              share of tasks solved at least once in k tries (the unbiased estimator
                      where scores are 0 or 1, else the best of the first k)
  pass@1[avg-of-k]    mean@k: the mean score of each task's k tries, averaged over tasks
  majority@k          the score of the most common answer of each task's k tries (with answers)
  mean/*              means over the rollouts: reward, turns, tokens; rates such as terminated in percent
`;

/**
 * The seed where NeMo Gym's collector put it before PR #1099 is the default, but NeMo Gym's agent
 * servers have refused it there since (422 on every `/run`): said before a run of `--agent-server`s.
 */
function seedFieldNotice(flags: CollectFlags): void {
  if (!flags.addSeed || (flags.seedField ?? 'request') !== 'request' || Object.keys(flags.agentServer).length === 0) return;
  process.stderr.write(
    "[collect] --add-seed puts each seed in responses_create_params.seed, which NeMo Gym's agent servers refuse since PR #1099 (422): --seed-field extra-body puts it in metadata.extra_body, where they take it\n",
  );
}
