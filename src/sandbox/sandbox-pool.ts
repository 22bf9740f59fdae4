import { AbortedError } from '../core/errors/aborted-error.js';
import { runSandboxed, type SandboxOptions, type SandboxRequest } from './run-sandboxed.js';
import type { SandboxVerdict } from './sandbox-verdict.js';

/**
 * Runs sandboxes at most `concurrency` at a time, in the order asked; the rest wait. Each sandbox
 * has its own user namespace, so one run's fork bomb uses its own process cap, not another's.
 */
export class SandboxPool {
  readonly #waiting: Array<() => void> = [];
  #running = 0;

  constructor(
    readonly concurrency: number,
    private readonly options: SandboxOptions = {},
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`a sandbox pool's concurrency is a whole number ≥ 1, got ${concurrency}`);
  }

  /** Sandboxes running now. */
  get running(): number {
    return this.#running;
  }

  async run(request: SandboxRequest): Promise<SandboxVerdict> {
    await this.#slot(request.signal);
    try {
      return await runSandboxed(request, this.options);
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }

  /** A free slot; an abort while waiting rejects as aborted, as an abort while running does. */
  #slot(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(new AbortedError('the sandboxed run was aborted', { cause: signal.reason }));
    if (this.#running < this.concurrency) {
      this.#running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const take = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.#running++;
        resolve();
      };
      const onAbort = (): void => {
        const index = this.#waiting.indexOf(take);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(new AbortedError('the sandboxed run was aborted while it waited for a sandbox', { cause: signal?.reason }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(take);
    });
  }
}
