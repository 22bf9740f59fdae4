/** An object told once when its timeout passes (`startTimeout`), unless `stopTimeout` came first. */
export interface TimeoutWatcher {
  onTimeout(): void;
}

/**
 * The watchers of one delay, in the order their timeouts pass (the order they were started: same
 * delay, a clock that only goes forward), each with when it passes; one timer for the first of them.
 */
interface Lane {
  readonly due: Map<TimeoutWatcher, number>;
  timer: NodeJS.Timeout | undefined;
}

const lanes = new Map<number, Lane>();

/** Whole milliseconds since the process started: a small integer (an SMI) in the map, not a boxed double. */
const now = () => Math.floor(performance.now());

/**
 * Tells `watcher` when `delayMs` has passed, as `setTimeout` would, without a Node timer and a closure
 * of its own: every request in flight has a deadline, all of the same few delays, and a timer with
 * its callback is ~240 bytes where a map entry is ~30 (issue 26). One timer per delay waits for the
 * first deadline of its lane. A watcher is started at most once at a time per delay.
 */
export function startTimeout(watcher: TimeoutWatcher, delayMs: number): void {
  let lane = lanes.get(delayMs);
  if (lane === undefined) {
    lane = { due: new Map(), timer: undefined };
    lanes.set(delayMs, lane);
  }
  const waitMs = timerDelay(delayMs);
  lane.due.set(watcher, now() + waitMs);
  lane.timer ??= setTimeout(expire, waitMs, delayMs);
}

/** Node's largest timer delay: a longer one (or less than 1 ms, or not a number) fires after 1 ms, as `setTimeout` does. */
const TIMEOUT_MAX = 2 ** 31 - 1;
const timerDelay = (delayMs: number) => (delayMs >= 1 && delayMs <= TIMEOUT_MAX ? delayMs : 1);

/** Forgets `watcher`'s timeout of `delayMs` (nothing if it passed already); the lane's timer goes with its last watcher. */
export function stopTimeout(watcher: TimeoutWatcher, delayMs: number): void {
  const lane = lanes.get(delayMs);
  if (lane === undefined || !lane.due.delete(watcher) || lane.due.size > 0) return;
  clearTimeout(lane.timer);
  lanes.delete(delayMs);
}

/** The lane's timer fired: tells every watcher whose time has come, then waits for the next one. */
function expire(delayMs: number): void {
  const lane = lanes.get(delayMs);
  if (lane === undefined) return;
  lane.timer = undefined;
  const at = now();
  for (const [watcher, due] of lane.due) {
    // The timer may fire within a millisecond of the deadline, by rounding: then wait that millisecond.
    if (due > at) {
      clearTimeout(lane.timer);
      lane.timer = setTimeout(expire, due - at, delayMs);
      return;
    }
    lane.due.delete(watcher);
    try {
      watcher.onTimeout();
    } catch (error) {
      // As a timer's callback: one watcher that throws neither stops the others nor is swallowed.
      queueMicrotask(() => {
        throw error;
      });
    }
  }
  // A watcher told may have started another timeout of this delay, in this lane or a new one.
  if (lanes.get(delayMs) === lane && lane.due.size === 0) {
    clearTimeout(lane.timer);
    lanes.delete(delayMs);
  }
}
