import type { z } from 'zod';
import type { Environment, EnvironmentTurn, ObservationTokens, ResetResult } from './environment.js';
import type { StepResultInput } from '../core/step-result.js';

interface PendingStep<Metadata> {
  turn: EnvironmentTurn<Metadata>;
  resolve: (result: StepResultInput) => void;
  reject: (error: unknown) => void;
}

export interface BatchedEnvironmentSpec<Metadata> {
  name: string;
  /** The task data `reset` reads (see `Environment.taskSchema`). */
  taskSchema?: z.ZodType;
  /** How its observations become tokens (see `Environment.observationTokens`; default `template`). */
  observationTokens?: ObservationTokens;
  reset(data: unknown, signal: AbortSignal): Promise<ResetResult<Metadata>>;
  stepBatch(turns: readonly EnvironmentTurn<Metadata>[], signal: AbortSignal): Promise<StepResultInput[]>;
  /** Largest batch handed to `stepBatch`. */
  maxBatchSize?: number;
}

/**
 * An environment whose per-episode `step` calls are gathered into `stepBatch` calls: every step
 * requested in the same turn of the event loop goes out together. Episodes keep calling `step`, so the
 * engine stays one loop; lockstep runs, where every episode steps at once, get full batches.
 */
export function createBatchedEnvironment<Metadata>(spec: BatchedEnvironmentSpec<Metadata>): Environment<Metadata> {
  const maxBatchSize = spec.maxBatchSize ?? 256;
  const pending: PendingStep<Metadata>[] = [];
  let flushScheduled = false;

  const flush = () => {
    flushScheduled = false;
    while (pending.length > 0) {
      const batch = pending.splice(0, maxBatchSize);
      // The batch outlives any one episode, so it runs under its own signal; each episode's abort still rejects its own promise.
      // Through a promise, so a stepBatch that throws synchronously rejects its callers instead of crashing the process.
      Promise.resolve()
        .then(() =>
          spec.stepBatch(
            batch.map((item) => item.turn),
            new AbortController().signal,
          ),
        )
        .then(
          (results) => {
            if (results.length !== batch.length) {
              const error = new Error(`${spec.name}: stepBatch returned ${results.length} results for ${batch.length} turns`);
              batch.forEach((item) => item.reject(error));
              return;
            }
            batch.forEach((item, i) => item.resolve(results[i] as StepResultInput));
          },
          (error: unknown) => batch.forEach((item) => item.reject(error)),
        );
    }
  };

  return {
    name: spec.name,
    ...(spec.taskSchema ? { taskSchema: spec.taskSchema } : {}),
    ...(spec.observationTokens ? { observationTokens: spec.observationTokens } : {}),
    reset: (data, signal) => spec.reset(data, signal),
    stepBatch: (turns, signal) => spec.stepBatch(turns, signal),
    step(turn, signal) {
      return new Promise<StepResultInput>((resolve, reject) => {
        if (signal.aborted) {
          reject(signal.reason);
          return;
        }
        const onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        const settled = () => signal.removeEventListener('abort', onAbort);
        pending.push({
          turn,
          resolve: (result) => {
            settled();
            resolve(result);
          },
          reject: (error) => {
            settled();
            reject(error);
          },
        });
        if (!flushScheduled) {
          flushScheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
