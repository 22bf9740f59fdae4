import { basename, dirname, extname, join } from 'node:path';
import { Command } from 'commander';
import { profileFiles } from '../collect/profile-files.js';

interface ProfileFlags {
  materialized: string;
  rollouts: string;
  allowPartial?: boolean;
}

/** `gymnast profile`: NeMo Gym's reward profile, rows and results aligned by (task, rollout), one group per task. */
export function profileCommand(): Command {
  return new Command('profile')
    .description("write NeMo Gym's per-task reward profile (<rollouts stem>_reward_profiling.jsonl and _agent_metrics.json)")
    .requiredOption('--materialized <file>', "the run's materialized inputs (<stem>_materialized_inputs.jsonl)")
    .requiredOption('--rollouts <file>', "the run's rollouts")
    .option('--allow-partial', 'profile even when some planned rollouts have no result')
    .action(async (flags: ProfileFlags) => {
      const profile = await profileFiles({ materialized: flags.materialized, rollouts: flags.rollouts, allowPartial: flags.allowPartial === true });
      const written = await profile.write(join(dirname(flags.rollouts), basename(flags.rollouts, extname(flags.rollouts))));
      const { expected, completed, missing, tasks } = profile.completion;
      process.stdout.write(
        `expected ${expected} rollouts, completed ${completed}, missing ${missing}; tasks: ${tasks.complete} complete, ${tasks.partial} partial, ${tasks.missing} without results\n` +
          `wrote ${written.profiling} and ${written.agentMetrics}\n`,
      );
    });
}
