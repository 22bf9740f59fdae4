import { RunSlots } from '../src/servers/agent/run-slots.js';
import type { BenchResult } from './bench-result.js';

/** `cycles` rollouts through slots of 32, all queued at once, each with its own signal as a request has: µs a rollout. */
async function microsecondsPerRollout(cycles: number): Promise<number> {
  const slots = new RunSlots(32, cycles);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: cycles }, async () => {
      const slot = await slots.acquire(new AbortController().signal);
      if (!('release' in slot)) throw new Error('refused');
      await null;
      slot.release();
    }),
  );
  return ((performance.now() - started) * 1000) / cycles;
}

/**
 * The agent server's slots at its default queue (10,000) and at 100,000: a waiter's cost must not grow
 * with the queue. Kept in an Array, it did (V8 moves a large array on every `shift`: 48 µs a rollout
 * at 10,000, 150 µs at 100,000); in a Set it stays flat within noise (81 and 73 µs).
 */
export async function runSlotsScaling(): Promise<BenchResult> {
  await microsecondsPerRollout(1_000);
  const small = await microsecondsPerRollout(10_000);
  const large = await microsecondsPerRollout(100_000);
  return {
    name: "RunSlots: a rollout through the agent server's slots (32 running), with 100,000 queued vs 10,000 (flat is right)",
    baseline: { label: '10,000 queued', value: small, unit: 'µs/rollout' },
    measured: { label: '100,000 queued', value: large, unit: 'µs/rollout' },
    lowerIsBetter: true,
  };
}
