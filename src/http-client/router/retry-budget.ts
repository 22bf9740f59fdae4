export interface RetryBudgetOptions {
  /** Retries allowed per request sent, on average (0.2: at most one retry for five requests). */
  ratio: number;
  /** Retries always allowed, so a quiet client can still retry. */
  reserve: number;
}

export const defaultRetryBudget: RetryBudgetOptions = { ratio: 0.2, reserve: 10 };

/**
 * A retry budget shared by every request of a policy (Envoy's and gRPC's idea): each request earns
 * `ratio` of a retry, each retry spends one. When a server is down for everyone, retries stop at a
 * fraction of the traffic instead of multiplying it by `maxAttempts`.
 */
export class RetryBudget {
  readonly #options: RetryBudgetOptions;
  #tokens: number;

  constructor(options: RetryBudgetOptions = defaultRetryBudget) {
    this.#options = options;
    this.#tokens = options.reserve;
  }

  /** A first attempt was sent. */
  recordRequest(): void {
    this.#tokens = Math.min(this.#tokens + this.#options.ratio, this.#options.reserve + 100);
  }

  /** Takes one retry from the budget; false when it is spent. */
  tryRetry(): boolean {
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
