import { Command, Option } from 'commander';
import { DRIFT_POLICIES, type DriftPolicy, type ExportCounts, exportNemoRl } from '../collect/export-nemo-rl.js';

interface ExportFlags {
  format: 'nemo-rl';
  input: string;
  output: string;
  onDrift: DriftPolicy;
}

/** `gymnast export`: a run's rollouts in a trainer's own form. */
export function exportCommand(): Command {
  return new Command('export')
    .description(
      "write a rollouts file in a trainer's form: nemo-rl is NeMo RL's message_log (token ids, generation logprobs, loss mask per message) and reward per rollout",
    )
    .addOption(new Option('--format <format>', 'the form to write').choices(['nemo-rl']).makeOptionMandatory())
    .requiredOption('-i, --input <file>', "the run's rollouts JSONL")
    .requiredOption('-o, --output <file>', 'the JSONL to write')
    .addOption(
      new Option(
        '--on-drift <mode>',
        'rows with token drift (the template would render the history differently): mask (loss_multiplier 0), drop, or keep; written rows carry token_drift_count',
      )
        .choices([...DRIFT_POLICIES])
        .default('mask'),
    )
    .action(async (flags: ExportFlags) => {
      const counts = await exportNemoRl(flags.input, flags.output, { onDrift: flags.onDrift });
      const masked = counts.masked === 0 ? '' : `, ${counts.masked} masked (loss_multiplier 0: ${maskedReasons(counts, flags.onDrift)})`;
      process.stdout.write(`wrote ${counts.written} rollouts to ${flags.output}${masked}\n`);
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
