import { GymnastError } from './gymnast-error.js';

/** The OS's reasons a server cannot listen, in words; the code stays in the message for searching. */
const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is in use',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'this machine has no such address',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
};

/** A server could not listen where it was told (`host:port`): the port is taken, privileged, or the host is not this machine's. */
export class ListenError extends GymnastError {
  readonly kind = 'listen';
  readonly host: string;
  readonly port: number;
  /** The OS's code (`EADDRINUSE`, …), when it gave one. */
  readonly code: string | undefined;

  /** `hint` says what to do, in the words of whoever chose the port (a flag, a config key). */
  constructor(address: { host: string; port: number }, cause: unknown, hint?: string) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    const reason = code === undefined ? String(cause instanceof Error ? cause.message : cause) : `${REASONS[code] ?? (cause as Error).message} (${code})`;
    const where = address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
    super(`cannot listen on ${where}: ${reason}${hint === undefined ? '' : `; ${hint}`}`, { cause });
    this.host = address.host;
    this.port = address.port;
    this.code = code;
  }

  /** The same error, saying what to do. */
  withHint(hint: string): ListenError {
    return new ListenError(this, this.cause, hint);
  }
}

/** `error` told what to do when it is a port in use (whoever chose the port words `hint`); any other error as it is. */
export function portInUseHint(error: unknown, hint: string): unknown {
  return error instanceof ListenError && error.code === 'EADDRINUSE' ? error.withHint(hint) : error;
}
