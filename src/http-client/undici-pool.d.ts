/**
 * undici's `Pool` from its own module (see undici-pool.fast.ts for why): the class the package's index
 * exports as `Pool`, which a spec checks.
 */
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';

  const PoolClass: typeof Pool;
  export default PoolClass;
}
