import { Command, CommanderError } from 'commander';
import { GymnastError } from '../core/errors/gymnast-error.js';
import { aggregateCommand } from './aggregate-command.js';
import { collectCommand } from './collect-command.js';
import { environmentsCommand } from './environments-command.js';
import { packageVersion } from './package-version.js';
import { profileCommand } from './profile-command.js';
import { renderCommand } from './render-command.js';
import { serveCommand } from './serve-command.js';

export function createProgram(): Command {
  return new Command('gymnast')
    .description('Rollouts for reinforcement learning of language models: policy ↔ environment episodes with exact tokens and logprobs.')
    .version(packageVersion(), '-v, --version')
    .showHelpAfterError()
    .exitOverride()
    .addCommand(collectCommand())
    .addCommand(aggregateCommand())
    .addCommand(profileCommand())
    .addCommand(environmentsCommand())
    .addCommand(renderCommand())
    .addCommand(serveCommand());
}

/** Runs the CLI and returns the process exit code; errors are printed, never thrown. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await createProgram().parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    const message = GymnastError.isInstance(error) ? `${error.kind}: ${error.message}` : String(error instanceof Error ? (error.stack ?? error) : error);
    process.stderr.write(`gymnast: ${message}\n`);
    return 1;
  }
}
