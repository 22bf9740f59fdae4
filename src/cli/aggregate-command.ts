import { Command } from 'commander';
import { aggregateFiles } from '../collect/aggregate-files.js';
import { writeAggregate, writeAggregateFile } from '../collect/write-aggregate-file.js';
import { isRolloutsFile } from '../collect/collect-paths.js';
import { filesBeside } from '../collect/result-files.js';
import { ConfigError } from '../core/errors/config-error.js';
import { expandGlob } from '../util/expand-glob.js';
import { keyMetricsTable } from './key-metrics-table.js';

/** Files beside rollouts that a glob like `results/*.jsonl` also matches: gymnast's and NeMo Gym's other outputs. */
interface AggregateFlags {
  input: string;
  output?: string;
  answerKey?: string;
  rolloutInfos?: boolean;
}

/** `gymnast aggregate`: NeMo Gym's aggregate metrics over rollout files, shards merged, with the plan and failures beside them. */
export function aggregateCommand(): Command {
  return new Command('aggregate')
    .description('recompute NeMo Gym aggregate metrics (pass@k, mean@k, group stats) and NeMo RL rollout metrics from rollout files, merging shards')
    .requiredOption(
      '-i, --input <glob>',
      'rollout JSONL files: a glob or comma-separated globs (materialized inputs and failure sidecars beside them are read too)',
    )
    .option('-o, --output <file>', 'write the aggregate metrics JSON here (default: print it)')
    .option(
      '--answer-key <field>',
      "the field holding each rollout's extracted answer, for majority@k and no_answer (default: extracted_answer, when rows have it)",
    )
    .option('--rollout-infos', "list every rollout in its task's group (NeMo Gym's rollout_infos: 14 lines per rollout)")
    .action(async (flags: AggregateFlags) => {
      const results = expandGlob(flags.input).filter(isRolloutsFile);
      if (results.length === 0) throw new ConfigError(`no rollout files match ${flags.input}`);
      const aggregates = await aggregateFiles({
        results,
        ...filesBeside(results),
        ...(flags.answerKey === undefined ? {} : { answerKey: flags.answerKey }),
        ...(flags.rolloutInfos ? { rolloutInfos: true } : {}),
      });
      if (flags.output === undefined) await writeAggregate(process.stdout, aggregates);
      else await writeAggregateFile(flags.output, aggregates);
      const from = `${results.length} file${results.length === 1 ? '' : 's'}`;
      // The same table collect ends with; the JSON, unscaled, is what went to the file or stdout.
      process.stderr.write(`key metrics of ${from}:\n${keyMetricsTable(aggregates)}`);
    });
}
