import { Command, Option } from 'commander';
import { exportNemoRl } from '../collect/export-nemo-rl.js';

interface ExportFlags {
  format: 'nemo-rl';
  input: string;
  output: string;
}

/** `gymnast export`: a run's rollouts in a trainer's own form. */
export function exportCommand(): Command {
  return new Command('export')
    .description("write a rollouts file in a trainer's form: nemo-rl is NeMo RL's message_log (token ids, generation logprobs, loss mask per message) and reward per rollout")
    .addOption(new Option('--format <format>', 'the form to write').choices(['nemo-rl']).makeOptionMandatory())
    .requiredOption('-i, --input <file>', "the run's rollouts JSONL")
    .requiredOption('-o, --output <file>', 'the JSONL to write')
    .action(async (flags: ExportFlags) => {
      const counts = await exportNemoRl(flags.input, flags.output);
      const masked = counts.masked === 0 ? '' : `, ${counts.masked} masked (loss_multiplier 0: ${counts.zeroTurn} zero-turn, the prompt alone filled the sequence)`;
      process.stdout.write(`wrote ${counts.written} rollouts to ${flags.output}${masked}\n`);
    });
}
