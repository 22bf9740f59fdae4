import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pickFreePort } from '../../src/servers/config/pick-free-port.js';

/** Where the Debian package puts it; the queue's specs skip (saying why) without it. */
export const REDIS_SERVER = '/usr/bin/redis-server';
export const redisMissing = existsSync(REDIS_SERVER)
  ? false
  : `${REDIS_SERVER} is not installed (apt-get install redis-server): the queue's specs need a real Redis`;

/** A redis-server of a spec's own, on a free loopback port, with AOF in a folder of its own. */
export class RedisServer {
  readonly port: number;
  readonly dir: string;
  readonly #password: string | undefined;
  #process: ChildProcess | undefined;

  private constructor(port: number, dir: string, password: string | undefined) {
    this.port = port;
    this.dir = dir;
    this.#password = password;
  }

  static async start(options: { password?: string } = {}): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), mkdtempSync(join(tmpdir(), 'gymnast-redis-')), options.password);
    await server.restart();
    return server;
  }

  /** `redis://[:password@]127.0.0.1:PORT/0`. */
  get url(): string {
    return `redis://${this.#password === undefined ? '' : `:${this.#password}@`}127.0.0.1:${this.port}/0`;
  }

  /** Starts it (again, from its AOF after `stop`), and waits until it answers. */
  async restart(): Promise<void> {
    const args = ['--port', `${this.port}`, '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes', '--save', ''];
    if (this.#password !== undefined) args.push('--requirepass', this.#password);
    this.#process = spawn(REDIS_SERVER, args, { stdio: 'ignore' });
    for (let tries = 0; ; tries++) {
      const client = new Redis(this.url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.ping();
        return;
      } catch (error) {
        if (tries > 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        client.disconnect();
      }
    }
  }

  /** A client of the spec's own, to look at what the queue keeps. */
  client(): Redis {
    return new Redis(this.url, { maxRetriesPerRequest: null });
  }

  /** Stops it as a restart does (SIGTERM: the AOF is flushed), and waits for it to exit. */
  async stop(): Promise<void> {
    const running = this.#process;
    this.#process = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  }
}

/**
 * A port nothing listens on, below the ephemeral range: no connection (a worker reconnecting while its
 * Redis restarts) can take it before redis-server binds it, or binds it again.
 */
export function freePort(): Promise<number> {
  return pickFreePort('127.0.0.1');
}
