import { writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { Command } from 'commander';
import { readResultRows } from '../collect/result-files.js';
import { rolloutKey } from '../collect/resume-state.js';
import { ConfigError } from '../core/errors/config-error.js';
import { aggregateMetrics, type ResultRow } from '../metrics/aggregate-metrics.js';

interface ProfileOptions {
  materialized: string;
  rollouts: string;
  allowPartial?: boolean;
}

/** NeMo Gym's reward profile: rows and results aligned by (task, rollout), one group per task. */
export function profileCommand(): Command {
  return new Command('profile')
    .description("write NeMo Gym's per-task reward profile (<rollouts stem>_reward_profiling.jsonl and _agent_metrics.json)")
    .requiredOption('--materialized <file>', 'the run\'s materialized inputs (<stem>_materialized_inputs.jsonl)')
    .requiredOption('--rollouts <file>', 'the run\'s rollouts')
    .option('--allow-partial', 'profile even when some planned rollouts have no result')
    .action(async (options: ProfileOptions) => {
      const planned = await readResultRows([options.materialized]);
      const results = await readResultRows([options.rollouts]);
      const plannedKeys = new Map(planned.map((row) => [rolloutKey(row), row]));
      const seen = new Set<string>();
      for (const result of results) {
        const key = rolloutKey(result);
        if (seen.has(key)) throw new ConfigError(`${options.rollouts}:${result._line}: rollout ${key} appears twice`);
        if (!plannedKeys.has(key)) throw new ConfigError(`${options.rollouts}:${result._line}: rollout ${key} has no row in ${options.materialized}`);
        seen.add(key);
      }
      const missing = [...plannedKeys.keys()].filter((key) => !seen.has(key));
      if (missing.length > 0 && !options.allowPartial) throw new ConfigError(`${missing.length} planned rollouts have no result (e.g. ${missing.slice(0, 5).join(', ')}); pass --allow-partial to profile anyway`);

      const stem = join(dirname(options.rollouts), basename(options.rollouts, extname(options.rollouts)));
      const agents = [...new Set(planned.map((row) => (row.agent_ref as { name: string }).name))];
      const profiles = agents.map((agent) => {
        const expectedRollouts = new Map<number, number>();
        for (const row of planned) if ((row.agent_ref as { name: string }).name === agent) expectedRollouts.set(row._ng_task_index as number, (expectedRollouts.get(row._ng_task_index as number) ?? 0) + 1);
        const mine: ResultRow[] = results.filter((row) => (row.agent_ref as { name: string }).name === agent).map(({ _file, _line, ...row }) => row);
        return aggregateMetrics(mine, { agent, expectedRollouts });
      });
      writeFileSync(`${stem}_reward_profiling.jsonl`, profiles.flatMap((profile) => profile.group_level_metrics.map((group) => `${JSON.stringify(group)}\n`)).join(''));
      writeFileSync(`${stem}_agent_metrics.json`, `${JSON.stringify(profiles.map(({ agent_ref, agent_metrics }) => ({ agent_ref, agent_metrics })), null, 2)}\n`);
      const tasks = new Set(planned.map((row) => row._ng_task_index));
      const incomplete = new Set(missing.map((key) => key.split(':')[0]));
      process.stdout.write(
        `expected ${plannedKeys.size} rollouts, completed ${seen.size}, missing ${missing.length}; tasks: ${tasks.size - incomplete.size} complete, ${incomplete.size} partial or missing\nwrote ${stem}_reward_profiling.jsonl and ${stem}_agent_metrics.json\n`,
      );
    });
}
