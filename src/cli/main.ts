import { Command, CommanderError } from 'commander';
import { GymnastError } from '../core/errors/gymnast-error.js';
import { hasKind } from '../core/errors/has-kind.js';
import { fileErrorReason } from '../util/file-error-reason.js';
import { LineTooLongError } from '../util/json-lines.js';
import { aggregateCommand } from './aggregate-command.js';
import { collectCommand } from './collect-command.js';
import { environmentsCommand } from './environments-command.js';
import { exportCommand } from './export-command.js';
import { healthCommand } from './health-command.js';
import { packageVersion } from './package-version.js';
import { profileCommand } from './profile-command.js';
import { renderCommand } from './render-command.js';
import { serveCommand } from './serve-command.js';
import { viewCommand } from './view-command.js';

export function createProgram(): Command {
  return new Command('gymnast')
    .description('Rollouts for reinforcement learning of language models: policy ↔ environment episodes with exact tokens and logprobs.')
    .version(packageVersion(), '-v, --version')
    .showHelpAfterError()
    .exitOverride()
    .addCommand(collectCommand())
    .addCommand(aggregateCommand())
    .addCommand(profileCommand())
    .addCommand(exportCommand())
    .addCommand(healthCommand())
    .addCommand(environmentsCommand())
    .addCommand(renderCommand())
    .addCommand(serveCommand())
    .addCommand(viewCommand());
}

/** Runs the CLI and returns the process exit code; errors are printed, never thrown. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await createProgram().parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(errorReport(error, process.env.GYMNAST_DEBUG === '1'));
    // 128 + SIGINT, as shells report a command stopped by Ctrl-C.
    return hasKind(error, 'aborted') ? 130 : 1;
  }
}

/**
 * What a user sees when a command fails: bad input and unusable files are one line naming what to
 * fix; anything else is a bug in gymnast, one line too, its stack shown only with GYMNAST_DEBUG=1
 * (a stack trace tells a user nothing, and hides the message).
 */
export function errorReport(error: unknown, debug: boolean): string {
  const stack = debug && error instanceof Error && error.stack ? `${error.stack}\n` : '';
  if (GymnastError.isInstance(error)) return `gymnast: ${error.kind}: ${error.message}\n${stack}`;
  if (error instanceof LineTooLongError) return `gymnast: ${error.message}\n${stack}`;
  const reason = fileErrorReason(error);
  if (reason !== undefined) {
    const path = (error as NodeJS.ErrnoException).path;
    return `gymnast: ${path === undefined ? '' : `${path}: `}${reason}\n${stack}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `gymnast: unexpected error: ${message}\n${stack || 'This is a bug in gymnast; run again with GYMNAST_DEBUG=1 to see where it happened, and report it.\n'}`;
}
