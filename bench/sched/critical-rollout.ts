import type { PolicyResultInput } from '../../src/core/policy-result.js';
import type { Policy, PolicyRequest } from '../../src/policy/policy.js';
import type { SimClock } from '../../src/testing/index.js';
import { withGenerate } from './with-generate.js';

/** One rollout's requests, in simulated seconds since the run began. */
export interface RolloutSpan {
  session: string;
  /** When its first request was sent. */
  start: number;
  /** When its last reply came back. */
  end: number;
  turns: number;
  /** Tokens decoded over its turns. */
  decoded: number;
}

/**
 * Follows every rollout's requests through a policy, to name the one that ended last: a run of multi-turn
 * rollouts cannot end before its last rollout's chain of turns does, each reply decoded one token per
 * engine step and each tool step waited out, however the requests are routed.
 */
export class CriticalRollout {
  readonly #spans = new Map<string, RolloutSpan>();
  readonly #clock: SimClock;
  readonly #origin: number;

  /** Times are counted from now: make it as the run begins. */
  constructor(clock: SimClock) {
    this.#clock = clock;
    this.#origin = clock.now();
  }

  /** `policy`, noting when each rollout's requests go out and come back, and what they decode. */
  wrap(policy: Policy): Policy {
    const generate = async (request: PolicyRequest, signal: AbortSignal): Promise<PolicyResultInput> => {
      const session = request.session_id;
      const span = this.#spans.get(session) ?? { session, start: this.#now(), end: 0, turns: 0, decoded: 0 };
      this.#spans.set(session, span);
      const result = await policy.generate(request, signal);
      span.end = this.#now();
      span.turns += 1;
      span.decoded += result.token_ids?.length ?? 0;
      return result;
    };
    return withGenerate(policy, generate);
  }

  #now(): number {
    return this.#clock.now() - this.#origin;
  }

  /** The rollout whose last reply came back last. */
  last(): RolloutSpan {
    const spans = [...this.#spans.values()];
    if (spans.length === 0) throw new RangeError('no rollout was followed');
    return spans.reduce((latest, span) => (span.end > latest.end ? span : latest));
  }
}

/**
 * The least time `span`'s turns take from its start, on a replica of its own: every decoded token is an
 * engine step of at least `beta0 + beta2` (one token), and every turn's tool step takes `stepSeconds`.
 */
export function uncontendedSeconds(span: RolloutSpan, stepTime: { beta0: number; beta2: number }, stepSeconds: number): number {
  return span.decoded * (stepTime.beta0 + stepTime.beta2) + span.turns * stepSeconds;
}
