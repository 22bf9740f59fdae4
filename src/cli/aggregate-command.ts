import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { assertUniqueKeys, expectedRolloutsBeside, readResultRows } from '../collect/result-files.js';
import { ConfigError } from '../core/errors/config-error.js';
import { aggregateMetrics } from '../metrics/aggregate-metrics.js';
import { expandGlob } from '../util/expand-glob.js';

export function aggregateCommand(): Command {
  return new Command('aggregate')
    .description('recompute NeMo Gym aggregate metrics (pass@k, mean@k, group stats) from rollout files, merging shards')
    .requiredOption('-i, --input <glob>', 'rollout JSONL files: a glob or comma-separated globs (failure sidecars are not rollouts)')
    .option('-o, --output <file>', 'write the aggregate metrics JSON here (default: print it)')
    .option('--answer-key <field>', 'a field holding the extracted answer, for majority@k')
    .action(async (options: { input: string; output?: string; answerKey?: string }) => {
      const files = expandGlob(options.input).filter((file) => !/_(failures|materialized_inputs)\.jsonl$/.test(file));
      if (files.length === 0) throw new ConfigError(`no rollout files match ${options.input}`);
      const rows = (await readResultRows(files)).filter((row) => row._ng_failure_class === undefined);
      assertUniqueKeys(rows);
      const expected = await expectedRolloutsBeside(files);
      const agents = [...new Set(rows.map((row) => (row.agent_ref as { name?: string } | undefined)?.name ?? 'agent'))];
      const aggregate = agents.map((agent) => {
        const expectedRollouts = expected?.get(agent);
        return aggregateMetrics(
          rows.filter((row) => ((row.agent_ref as { name?: string } | undefined)?.name ?? 'agent') === agent).map(({ _file, _line, ...row }) => row),
          { agent, ...(expectedRollouts ? { expectedRollouts } : {}), ...(options.answerKey ? { answerKey: options.answerKey } : {}) },
        );
      });
      const text = `${JSON.stringify(aggregate, null, 2)}\n`;
      if (options.output) writeFileSync(options.output, text);
      else process.stdout.write(text);
      for (const agent of aggregate) process.stderr.write(`${agent.agent_ref.name}: ${JSON.stringify(agent.key_metrics)} (${files.length} file${files.length === 1 ? '' : 's'})\n`);
    });
}
