/**
 * Microseconds per call of each way, measured in alternating rounds with the best round of each kept:
 * on a shared machine, the round least disturbed. Each way is first run until the JIT has settled
 * (as many calls as a round), then each round runs it for about `roundMs`.
 */
export function perCall<K extends string>(
  ways: Record<K, () => unknown>,
  { rounds = 15, roundMs = 30 }: { rounds?: number; roundMs?: number } = {},
): Record<K, number> {
  const names = Object.keys(ways) as K[];
  const calls = {} as Record<K, number>;
  for (const name of names) calls[name] = calibrate(ways[name], roundMs);
  const best = {} as Record<K, number>;
  for (const name of names) best[name] = Infinity;
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      const way = ways[name];
      const count = calls[name];
      const started = performance.now();
      for (let i = 0; i < count; i++) sink = way();
      best[name] = Math.min(best[name], ((performance.now() - started) * 1000) / count);
    }
  }
  return best;
}

/** Somewhere to put results, so no call is optimized away. */
export let sink: unknown;

/** How many calls take about `roundMs`, found while warming the way up. */
function calibrate(way: () => unknown, roundMs: number): number {
  let count = 1;
  for (;;) {
    const started = performance.now();
    for (let i = 0; i < count; i++) sink = way();
    const elapsed = performance.now() - started;
    if (elapsed >= roundMs / 4) return Math.max(1, Math.round((count * roundMs) / elapsed));
    count *= 2;
  }
}
