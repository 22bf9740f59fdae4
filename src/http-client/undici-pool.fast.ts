// Fast path: mirrors undici 7.30.2's index export of Pool; 2.7× less CPU to load (docs/fast-paths.md#undici-pool); guard: test/http-client/undici-pool-fast-path.test.ts.
import type { Pool } from 'undici';
import { sayFastPathOff } from '../util/fast-path-off.js';

let loading: Promise<typeof Pool> | undefined;

/**
 * undici's `Pool` class, loaded on first use from its own module (undici/lib/dispatcher/pool.js, a
 * path the package does not export): undici's index loads all of undici (fetch, WebSocket, cookies,
 * EventSource, HTTP/2) for the one class gymnast uses, CPU every start of `gymnast collect` paid
 * before its first request (issue 13). Another version of undici may move or change the module: then
 * the class comes from the index, and one line on stderr says so (`sayFastPathOff`).
 */
export function undiciPool(): Promise<typeof Pool> {
  loading ??= load();
  return loading;
}

async function load(): Promise<typeof Pool> {
  let reason: string;
  try {
    const { default: PoolClass } = await import('undici/lib/dispatcher/pool.js');
    if (typeof PoolClass === 'function' && typeof PoolClass.prototype.dispatch === 'function') return PoolClass;
    reason = 'its lib/dispatcher/pool.js does not export a class with a dispatch method';
  } catch (error) {
    reason = `its lib/dispatcher/pool.js does not load (${error instanceof Error ? error.message : String(error)})`;
  }
  sayFastPathOff({ fastPath: 'undici Pool module', library: 'undici', writtenFor: '7.30.2', reason, slowPath: "undici's index, which loads all of undici" });
  return (await import('undici')).Pool;
}
