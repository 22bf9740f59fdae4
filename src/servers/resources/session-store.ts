import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** How many sessions a server keeps before it forgets the least recently used (see `SessionStore`). */
export const DEFAULT_MAX_SESSIONS = 10_000;

/** One rollout's server-side state, found by the id its cookie carries. */
export interface ResourcesSession<State> {
  readonly id: string;
  /** What seed_session, tools and verify share; handlers may mutate it or replace it. */
  state: State;
}

/**
 * Per-session state held server-side, keyed by an unguessable id (a uuid4, as NeMo Gym's session
 * middleware writes): the cookie is then a bearer capability that never changes after
 * `/seed_session`, so a client that keeps only the first cookie (NeMo Gym's agents) stays correct,
 * and state of any size (a game, a tool box) never travels in a 4 KB cookie. The map is bounded:
 * past `maxSessions`, the least recently used session is forgotten, so a run that never closes
 * its sessions (NeMo Gym has no end-of-rollout call for tool servers) holds memory by concurrency,
 * not by dataset size. A forgotten or unknown id is answered with a fresh session and a new cookie.
 */
export class SessionStore<State> {
  readonly #sessions: LRUCache<string, ResourcesSession<State>>;
  readonly #initialState: () => State;

  constructor(initialState: () => State, maxSessions = DEFAULT_MAX_SESSIONS) {
    if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new RangeError(`maxSessions must be a positive integer, got ${maxSessions}`);
    this.#initialState = initialState;
    this.#sessions = new LRUCache({ max: maxSessions });
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The session `id` names, or a new one (`created`) when the id is absent, unknown or forgotten. */
  open(id: string | undefined): { session: ResourcesSession<State>; created: boolean } {
    const found = id === undefined ? undefined : this.#sessions.get(id);
    if (found) return { session: found, created: false };
    const session: ResourcesSession<State> = { id: randomUUID(), state: this.#initialState() };
    this.#sessions.set(session.id, session);
    return { session, created: true };
  }

  /** Forgets a session's state (gymnasium's close); its cookie then opens a fresh one. */
  delete(id: string): void {
    this.#sessions.delete(id);
  }
}
