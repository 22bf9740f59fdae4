/**
 * Resolves once the event loop comes round: every promise chain that runs without a timer or I/O has
 * run by then. Scripted policies and environments answer without either, so an in-process run held at
 * one reply has, by then, gone as far as it can without it. Unlike a sleep, how busy the machine is
 * does not change what has happened when it resolves.
 */
export function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
