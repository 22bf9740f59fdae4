import { hasKind } from '../core/errors/has-kind.js';

/** Rethrows `error`, a port in use told how to pick another with the command's `--port`: for `server.start().catch(portFlagHint)`. */
export function portFlagHint(error: unknown): never {
  if (hasKind(error, 'listen') && error.code === 'EADDRINUSE') throw error.withHint('choose another with --port, or --port 0 for a free one');
  throw error;
}
