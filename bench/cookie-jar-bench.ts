import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { BenchResult } from './bench-result.js';

const run = promisify(execFile);
const JAR = fileURLToPath(new URL('../src/environments/nemo-gym/cookie-jar.ts', import.meta.url));

/**
 * In a fresh child each time (a module loads once per process): the milliseconds to load the cookie
 * jar, or undici's public entry for its cookie parser (`parseCookie`), then 100,000 session
 * cookies as NeMo Gym's servers set them parsed by each; the best of 5 children.
 */
const SCRIPT = (entry: 'jar' | 'undici') => `
  const started = performance.now();
  const parse = ${entry === 'jar' ? `(await import(${JSON.stringify(JAR)})).withSetCookies` : `(await import('undici')).parseCookie`};
  const loadMs = performance.now() - started;
  const header = 'SimpleResourcesServer___counter=0c5a3b1e-9d2f-4c4e-8f57-3b2a1d0e9f8c; Path=/; HttpOnly; SameSite=lax';
  const parsing = performance.now();
  for (let i = 0; i < 100000; i++) ${entry === 'jar' ? 'parse({}, header)' : 'parse(header)'};
  console.log(JSON.stringify({ loadMs, parseMs: performance.now() - parsing }));`;

async function best(entry: 'jar' | 'undici'): Promise<{ loadMs: number; parseMs: number }> {
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT(entry)]);
    runs.push(JSON.parse(stdout) as { loadMs: number; parseMs: number });
  }
  return { loadMs: Math.min(...runs.map((one) => one.loadMs)), parseMs: Math.min(...runs.map((one) => one.parseMs)) };
}

export async function cookieJarCost(): Promise<BenchResult> {
  const [jar, undici] = [await best('jar'), await best('undici')];
  return {
    name: `cookie jar: loading it vs undici's public entry for parseCookie (100,000 Set-Cookie headers parsed: jar ${jar.parseMs.toFixed(0)} ms, undici ${undici.parseMs.toFixed(0)} ms)`,
    baseline: { label: "undici's parseCookie", value: undici.loadMs, unit: 'ms to load' },
    measured: { label: 'cookie jar', value: jar.loadMs, unit: 'ms to load' },
    lowerIsBetter: true,
  };
}
