import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import type { BenchResult } from './bench-result.js';

const run = promisify(execFile);
const ROUNDS = 7;
const root = fileURLToPath(new URL('..', import.meta.url));

/** What each way imports: undici's Pool from its own module, or the package's index. */
const ENTRIES = {
  module: "import Pool from 'undici/lib/dispatcher/pool.js'; export { Pool };",
  index: "export { Pool } from 'undici';",
};
type Way = keyof typeof ENTRIES;

/** CPU ms a fresh process (in the package's folder, so bare names resolve) spends importing `specifier`; Node's own start left out. */
async function importCpu(specifier: string): Promise<number> {
  const script = `const before = process.cpuUsage(); const loaded = await import(${JSON.stringify(specifier)}); const Pool = loaded.Pool ?? loaded.default; if (typeof Pool !== 'function') throw new Error('no Pool'); const used = process.cpuUsage(before); console.log((used.user + used.system) / 1000);`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
  return Number(stdout);
}

/** Both ways, `ROUNDS` alternating processes each; the least CPU of each. */
async function best(specifiers: Record<Way, string>): Promise<Record<Way, number>> {
  const least = { module: Infinity, index: Infinity };
  for (let round = 0; round < ROUNDS; round++)
    for (const way of ['module', 'index'] as const) least[way] = Math.min(least[way], await importCpu(specifiers[way]));
  return least;
}

/**
 * undici's Pool loaded from its own module (undici/lib/dispatcher/pool.js, a path the package does not
 * export) against the package's index, which loads all of undici: as the library in dist/ loads it
 * (from node_modules), and as the CLI's bundle does (each entry bundled by esbuild as
 * scripts/bundle-cli.mjs bundles, then imported).
 */
export async function undiciPoolImport(): Promise<BenchResult[]> {
  const installed = await best({ module: 'undici/lib/dispatcher/pool.js', index: 'undici' });
  const directory = await mkdtemp(join(tmpdir(), 'gymnast-bench-undici-'));
  try {
    const banner = "import { createRequire as __gymnastCreateRequire } from 'node:module'; const require = __gymnastCreateRequire(import.meta.url);";
    for (const [way, contents] of Object.entries(ENTRIES)) {
      await build({
        stdin: { contents, resolveDir: root, loader: 'js' },
        outfile: join(directory, `${way}.mjs`),
        bundle: true,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        banner: { js: banner },
        logLevel: 'warning',
      });
    }
    const bundled = await best({ module: pathToFileURL(join(directory, 'module.mjs')).href, index: pathToFileURL(join(directory, 'index.mjs')).href });
    const each = `CPU of a fresh process's import, the least of ${ROUNDS} alternating processes`;
    return [
      {
        name: `undici Pool from its own module, as the library loads it from node_modules (${each})`,
        baseline: { label: "undici's index", value: installed.index, unit: 'ms' },
        measured: { label: 'lib/dispatcher/pool.js', value: installed.module, unit: 'ms' },
        lowerIsBetter: true,
      },
      {
        name: `undici Pool from its own module, in a bundle as the CLI's (${each})`,
        baseline: { label: "undici's index", value: bundled.index, unit: 'ms' },
        measured: { label: 'lib/dispatcher/pool.js', value: bundled.module, unit: 'ms' },
        lowerIsBetter: true,
      },
    ];
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
