import { Command, CommanderError } from 'commander';
import { GymnastError } from '../core/errors/gymnast-error.js';
import { hasKind } from '../core/errors/has-kind.js';
import { fileErrorReason } from '../util/file-error-reason.js';
import { LineTooLongError } from '../util/json-lines.js';
import { packageVersion } from './package-version.js';

/**
 * Each subcommand's module, imported only when that command runs: `collect` should not pay to load
 * the viewer, the servers or export (their imports cost a few hundred milliseconds at every start).
 * In the order `gymnast --help` lists them.
 */
const commands: Record<string, () => Promise<Command>> = {
  collect: async () => (await import('./collect-command.js')).collectCommand(),
  worker: async () => (await import('./worker-command.js')).workerCommand(),
  aggregate: async () => (await import('./aggregate-command.js')).aggregateCommand(),
  profile: async () => (await import('./profile-command.js')).profileCommand(),
  export: async () => (await import('./export-command.js')).exportCommand(),
  health: async () => (await import('./health-command.js')).healthCommand(),
  reverify: async () => (await import('./reverify-command.js')).reverifyCommand(),
  environments: async () => (await import('./environments-command.js')).environmentsCommand(),
  render: async () => (await import('./render-command.js')).renderCommand(),
  sandbox: async () => (await import('./sandbox-command.js')).sandboxCommand(),
  train: async () => (await import('./train-command.js')).trainCommand(),
  'train-sampler': async () => (await import('./train-sampler-command.js')).trainSamplerCommand(),
  serve: async () => (await import('./serve-command.js')).serveCommand(),
  view: async () => (await import('./view-command.js')).viewCommand(),
};

/** Commands gymnast runs itself, not listed in --help. */
const hidden = new Set(['train-sampler']);

/**
 * The program with the subcommand `args` names (the arguments after the script), or with every
 * subcommand when they name none (`--help`, `--version`, a misspelt command: commander lists them
 * or suggests the closest).
 */
export async function createProgram(args: readonly string[] = []): Promise<Command> {
  const program = new Command('gymnast')
    .description('Rollouts for reinforcement learning of language models: policy ↔ environment episodes with exact tokens and logprobs.')
    .version(packageVersion(), '-v, --version')
    .showHelpAfterError()
    // A command's options come before its subcommand (`serve --api-key K` is the head server's key,
    // `serve model --api-key K` the model server's): commander needs this from the root down.
    .enablePositionalOptions()
    .exitOverride();
  const named = args[0] !== undefined && Object.hasOwn(commands, args[0]) ? [commands[args[0]]!] : Object.values(commands);
  for (const command of await Promise.all(named.map((load) => load()))) program.addCommand(command, { hidden: hidden.has(command.name()) });
  return program;
}

/** Runs the CLI and returns the process exit code; errors are printed, never thrown. */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await (await createProgram(argv.slice(2))).parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(errorReport(error, process.env.GYMNAST_DEBUG === '1'));
    return exitCodeOf(error);
  }
}

/**
 * The exit code of a command that failed. 130 (128 + SIGINT, as shells report a command stopped by
 * Ctrl-C) and 75 (EX_TEMPFAIL: failures remain that `--resume` would retry) each tell a script that the
 * run is not finished and the same command with `--resume` continues it; anything else is 1.
 */
export function exitCodeOf(error: unknown): number {
  if (hasKind(error, 'aborted')) return 130;
  if (hasKind(error, 'retryable-failures')) return 75;
  return 1;
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
