/** The signals a collection listens to, until `dispose`. */
export interface Interruptions {
  /** Aborted by the first Ctrl-C (or SIGTERM): no more rollouts start. */
  stopAdmitting: AbortSignal;
  /** Aborted by the second: the rollouts in flight end, recorded as `aborted` failures. */
  abort: AbortSignal;
  dispose: () => void;
}

/**
 * The first Ctrl-C stops admitting rollouts and lets those in flight finish (`notice` says so); the
 * second aborts them. Either way the files resume cleanly with --resume.
 */
export function interruptions(
  notice: (message: string) => void,
  stopping = 'stopping: finishing the rollouts in flight (Ctrl-C again aborts them); --resume continues later',
): Interruptions {
  const admitting = new AbortController();
  const running = new AbortController();
  const onSignal = () => {
    if (!admitting.signal.aborted) {
      admitting.abort(new Error('interrupted'));
      notice(stopping);
    } else {
      running.abort(new Error('interrupted twice'));
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopAdmitting: admitting.signal,
    abort: running.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
