#!/usr/bin/env node
// Runs the CLI bundle (dist/cli-bundle/main.js: one ESM file and lazily loaded chunks, ~130 ms less
// CPU at start than loading dist/'s ~280 modules one by one), else the compiled CLI from dist/. In a
// checkout whose src/ is newer than a build (or that has none yet), it runs the TypeScript sources
// through tsx instead, so `npx gymnast` and the CLI tests never exercise a stale build. An installed
// package ships no src/, so it always runs dist/.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// A long collect keeps a small live heap (a few tens of MB) but allocates fast, so V8 lets the old
// generation grow to about four times it between collections: a 100,000-rollout run peaked at 1.9×
// the memory of a 1,000-rollout one. Growing at most twice the live heap holds it to ~1.4×, for ~7%
// more CPU (paired 8,000-rollout runs; 150 costs ~1% and holds ~1.55×). A value given on node's
// command line wins.
if (!process.execArgv.some((flag) => flag.startsWith('--heap-growing-percent'))) setFlagsFromString('--heap-growing-percent=100');

const root = fileURLToPath(new URL('..', import.meta.url));
const builds = [join(root, 'dist', 'cli-bundle', 'main.js'), join(root, 'dist', 'cli', 'main.js')];
const sources = join(root, 'src');

/**
 * The newest mtime under `dir`. Directory mtimes count too: they change when a source file is added or
 * removed. Walked by hand: Node 20's recursive readdirSync took ~10 ms of every start, this ~3 ms.
 */
function newestChange(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

/** The first build at least as new as every source, or undefined. */
function currentBuild() {
  const existing = builds.filter((path) => existsSync(path));
  if (existing.length === 0 || !existsSync(sources)) return existing[0];
  const newest = newestChange(sources);
  return existing.find((path) => statSync(path).mtimeMs >= newest);
}

async function loadSources() {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    process.stderr.write(
      `gymnast: ${builds[1]} is missing or older than src/, and tsx (a dev dependency) is not installed to run the sources: run \`npm ci\` or \`npm run build\`\n`,
    );
    process.exit(1);
  }
  register();
  return import(pathToFileURL(join(sources, 'cli', 'main.ts')).href);
}

const built = currentBuild();
const { main } = built !== undefined ? await import(pathToFileURL(built).href) : await loadSources();
process.exitCode = await main(process.argv);
