import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { ServerStartError } from '../../core/errors/server-start-error.js';
import { abortableDelay } from '../../util/abortable-delay.js';

export interface ExternalServerOptions {
  /** The instance's name: prefixes its output and names it in errors. */
  name: string;
  /** argv; `{host}` and `{port}` are replaced by where it must listen. */
  command: readonly string[];
  host: string;
  port: number;
  /** Added to gymnast's environment, with HOST and PORT (and whatever the caller adds, e.g. NeMo Gym's config variables). */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** GET until it answers with any HTTP status (default `/`). */
  healthPath?: string;
  /** Default 60 s. */
  startupTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL when stopping (default 5 s). */
  graceMs?: number;
  /** Each line the process writes, prefixed `[name] ` (default: to gymnast's stderr). */
  output?: (line: string) => void;
}

/** Lines of stderr kept to explain a server that died before answering. */
const KEPT_LINES = 20;
const POLL_MS = 100;

/**
 * A server gymnast runs as a child process: started in its own process group (so stopping it stops
 * whatever it spawned too), its output prefixed with its name, health-checked until it answers, and
 * stopped with SIGTERM, then SIGKILL after a grace period. If gymnast exits without stopping it, an
 * exit hook kills the group, so Ctrl-C and a normal exit leave no orphans (a SIGKILL of gymnast can).
 */
export class ExternalServer {
  readonly name: string;
  readonly url: string;
  readonly #options: ExternalServerOptions;
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  readonly #lastLines: string[] = [];
  readonly #killOnExit = () => this.#signal('SIGKILL');

  constructor(options: ExternalServerOptions) {
    this.#options = options;
    this.name = options.name;
    this.url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`;
  }

  /** The process id while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Spawns it and resolves with its URL once it answers; a `ServerStartError` naming it when it exits first or never answers. */
  async start(): Promise<string> {
    const { command, host, port } = this.#options;
    const argv = command.map((part) => part.replaceAll('{host}', host).replaceAll('{port}', String(port)));
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: this.#options.cwd,
      env: { ...process.env, ...this.#options.env, HOST: host, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.#child = child;
    process.on('exit', this.#killOnExit);
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.#pipe(child.stdout!);
    this.#pipe(child.stderr!);
    // once() rejects with the 'error' event: a command that cannot be run.
    const spawned = await once(child, 'spawn').then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    if (spawned) {
      process.off('exit', this.#killOnExit);
      throw new ServerStartError(this.name, `could not run ${argv[0]}: ${spawned.message}`, { cause: spawned });
    }
    await this.#untilHealthy(child);
    return this.url;
  }

  /** SIGTERM to its process group, SIGKILL after the grace period; resolves when it has exited. */
  async stop(): Promise<void> {
    const child = this.#child;
    // A command that never ran has no process to stop (and will not emit 'exit').
    if (!child || !this.#exited || child.pid === undefined) return;
    if (child.exitCode === null && child.signalCode === null) {
      this.#signal('SIGTERM');
      const killed = setTimeout(() => this.#signal('SIGKILL'), this.#options.graceMs ?? 5_000);
      await this.#exited;
      clearTimeout(killed);
    }
    process.off('exit', this.#killOnExit);
  }

  async #untilHealthy(child: ChildProcess): Promise<void> {
    const timeoutMs = this.#options.startupTimeoutMs ?? 60_000;
    const target = `${this.url}${this.#options.healthPath ?? '/'}`;
    const deadline = Date.now() + timeoutMs;
    const exit = new AbortController();
    void this.#exited!.then(() => exit.abort());
    while (Date.now() < deadline) {
      if (exit.signal.aborted) break;
      try {
        const response = await fetch(target, { signal: AbortSignal.any([AbortSignal.timeout(1_000), exit.signal]) });
        await response.body?.cancel();
        return;
      } catch {
        await abortableDelay(POLL_MS, exit.signal).catch(() => undefined);
      }
    }
    if (exit.signal.aborted || child.exitCode !== null) {
      const how = child.signalCode ? `was killed by ${child.signalCode}` : `exited with code ${child.exitCode}`;
      throw new ServerStartError(this.name, `${how} before answering GET ${target}${this.#tail()}`);
    }
    await this.stop();
    throw new ServerStartError(this.name, `did not answer GET ${target} within ${timeoutMs / 1000} s (startup_timeout_seconds)${this.#tail()}`);
  }

  #pipe(stream: NodeJS.ReadableStream): void {
    const write = this.#options.output ?? ((line: string) => process.stderr.write(`${line}\n`));
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      this.#lastLines.push(line);
      if (this.#lastLines.length > KEPT_LINES) this.#lastLines.shift();
      write(`[${this.name}] ${line}`);
    });
  }

  #tail(): string {
    return this.#lastLines.length === 0 ? '' : `; its last output:\n${this.#lastLines.map((line) => `  ${line}`).join('\n')}`;
  }

  /** The whole group: a shell or launcher's children go too. */
  #signal(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  }
}
