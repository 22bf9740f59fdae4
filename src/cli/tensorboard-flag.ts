import { InvalidArgumentError } from 'commander';
import { ConfigError } from '../core/errors/config-error.js';
import { hasKind } from '../core/errors/has-kind.js';
import { EventFileWriter } from '../tensorboard/event-file-writer.js';

/** `--tensorboard`'s help, the same for `collect` and `train`. */
export function tensorBoardHelp(what: string): string {
  return `write ${what} as TensorBoard scalars to an event file in this folder (made if missing): tensorboard --logdir DIR shows them, wandb sync --sync-tensorboard DIR uploads them`;
}

/** The folder `--tensorboard` names: an empty one is refused as the flag's. */
export function parseTensorBoardFolder(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('expected the folder for the TensorBoard event files, got an empty path');
  return value;
}

/** A new event file in `folder`; a folder that cannot be made (a file in the way) is refused naming the flag, before the run starts. */
export async function openTensorBoard(folder: string): Promise<EventFileWriter> {
  try {
    return await EventFileWriter.open(folder);
  } catch (error) {
    if (hasKind(error, 'output-path')) throw new ConfigError(`--tensorboard ${error.message}`, { cause: error });
    throw error;
  }
}
