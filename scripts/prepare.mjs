#!/usr/bin/env node
// package.json's `prepare`: npm runs it after `npm ci` or `npm install` in a checkout, before `npm pack`
// and `npm publish`, and when it installs gymnast from git. It builds dist/ (`npm run build`) with
// TypeScript and esbuild, which are dev dependencies: a production install of a checkout
// (`npm ci --omit=dev`, say in a container given a dist/ built beforehand) has neither, so there it
// skips the build and says so instead of failing the install. Packing without them stays an error: the
// tarball would lack dist/.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Whether `name` resolves from the package, as the build's own imports would. */
function installed(name) {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

const missing = ['typescript', 'esbuild'].filter((name) => !installed(name));
const packing = process.env.npm_command === 'pack' || process.env.npm_command === 'publish';
if (missing.length > 0 && !packing) {
  process.stderr.write(
    `gymnast: dist/ left as it is: the build needs ${missing.join(' and ')}, dev dependencies this install left out (npm ci without --omit=dev installs them)\n`,
  );
} else {
  // The npm (or pnpm, yarn) that runs this script, for `run build`; plain npm when run by hand.
  const [command, args] = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  const { status, error } = spawnSync(command, [...args, 'run', 'build'], { stdio: 'inherit' });
  if (error) throw error;
  process.exitCode = status ?? 1;
}
