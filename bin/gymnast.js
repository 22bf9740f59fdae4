#!/usr/bin/env node
// Runs the compiled CLI from dist/. In a checkout whose src/ is newer than that build (or that has
// none yet), it runs the TypeScript sources through tsx instead, so `npx gymnast` and the CLI tests
// never exercise a stale build. An installed package ships no src/, so it always runs dist/.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'dist', 'cli', 'main.js');
const sources = join(root, 'src');

/** Directory mtimes count too: they change when a source file is added or removed. */
function newestSourceChange() {
  const names = readdirSync(sources, { recursive: true });
  return Math.max(statSync(sources).mtimeMs, ...names.map((name) => statSync(join(sources, name)).mtimeMs));
}

function buildIsCurrent() {
  return existsSync(built) && (!existsSync(sources) || statSync(built).mtimeMs >= newestSourceChange());
}

async function loadSources() {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    process.stderr.write(`gymnast: ${built} is missing or older than src/, and tsx (a dev dependency) is not installed to run the sources: run \`npm ci\` or \`npm run build\`\n`);
    process.exit(1);
  }
  register();
  return import(pathToFileURL(join(sources, 'cli', 'main.ts')).href);
}

const { main } = buildIsCurrent() ? await import(pathToFileURL(built).href) : await loadSources();
process.exitCode = await main(process.argv);
