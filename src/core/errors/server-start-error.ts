import { GymnastError } from './gymnast-error.js';

/** A server of a config run did not come up (it exited, never answered, or could not bind); the others were stopped. */
export class ServerStartError extends GymnastError {
  readonly kind = 'server-start';
  /** The server instance's name in the config. */
  readonly server: string;

  constructor(server: string, message: string, options?: { cause?: unknown }) {
    super(`server "${server}": ${message}`, options);
    this.server = server;
  }
}
