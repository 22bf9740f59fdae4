import { Command, Option } from 'commander';
import { exportCsv } from '../collect/export-csv.js';
import { DRIFT_POLICIES, type DriftPolicy, type ExportCounts, exportNemoRl } from '../collect/export-nemo-rl.js';
import { exportParquet } from '../collect/export-parquet.js';

const FORMATS = ['nemo-rl', 'parquet', 'csv'] as const;

interface ExportFlags {
  format: (typeof FORMATS)[number];
  input: string;
  output: string;
  onDrift: DriftPolicy;
}

/** `gymnast export`: a run's rollouts in a trainer's own form, or as a table (Parquet for pandas and `datasets`, CSV for spreadsheets). */
export function exportCommand(): Command {
  return new Command('export')
    .description(
      "write a rollouts file in a trainer's form or as a table, one row per rollout: nemo-rl is NeMo RL's message_log (token ids, generation logprobs, loss mask per message) and reward; parquet has keys, agent, termination, rewards, turns and the token ids and logprobs as list columns (pandas, Hugging Face datasets); csv is that summary without token arrays, for spreadsheets",
    )
    .addOption(new Option('--format <format>', 'the form to write').choices([...FORMATS]).makeOptionMandatory())
    .requiredOption('-i, --input <file>', "the run's rollouts JSONL")
    .requiredOption('-o, --output <file>', 'the file to write (JSONL for nemo-rl)')
    .addOption(
      new Option(
        '--on-drift <mode>',
        'nemo-rl and parquet: rows with token drift (the template would render the history differently): mask (loss_multiplier 0), drop, or keep; written rows carry token_drift_count',
      )
        .choices([...DRIFT_POLICIES])
        .default('mask'),
    )
    .action(async (flags: ExportFlags) => {
      if (flags.format === 'csv') {
        const { written } = await exportCsv(flags.input, flags.output);
        process.stdout.write(`wrote ${written} rollouts to ${flags.output}\n`);
        return;
      }
      const options = { onDrift: flags.onDrift };
      const counts: ExportCounts & { evaluationOnly?: number } =
        flags.format === 'parquet' ? await exportParquet(flags.input, flags.output, options) : await exportNemoRl(flags.input, flags.output, options);
      const masked = counts.masked === 0 ? '' : `, ${counts.masked} masked (loss_multiplier 0: ${maskedReasons(counts, flags.onDrift)})`;
      const textOnly = (counts.evaluationOnly ?? 0) > 0 ? `, ${counts.evaluationOnly} evaluation-only (no token ids: null token columns)` : '';
      process.stdout.write(`wrote ${counts.written} rollouts to ${flags.output}${masked}${textOnly}\n`);
      if (counts.drifted > 0)
        process.stderr.write(
          `${counts.drifted} ${counts.drifted === 1 ? 'row' : 'rows'} with token drift ${DRIFT_DONE[flags.onDrift]} (--on-drift ${flags.onDrift})\n`,
        );
    });
}

const DRIFT_DONE: Record<DriftPolicy, string> = { mask: 'masked', drop: 'dropped', keep: 'kept with loss_multiplier 1' };

function maskedReasons(counts: ExportCounts, onDrift: DriftPolicy): string {
  const reasons = counts.zeroTurn === 0 ? [] : [`${counts.zeroTurn} zero-turn, the prompt alone filled the sequence`];
  if (onDrift === 'mask' && counts.drifted > 0) reasons.push(`${counts.drifted} with token drift`);
  return reasons.join('; ');
}
