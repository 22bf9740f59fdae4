import { portInUseHint } from '../core/errors/listen-error.js';

/** Rethrows `error`, a port in use told how to pick another with the command's `--port`: for `server.start().catch(portFlagHint)`. */
export function portFlagHint(error: unknown): never {
  throw portInUseHint(error, 'choose another with --port, or --port 0 for a free one');
}
