// The CLI bundle's entry (see bundle-cli.mjs): exports main for bin/gymnast.js, and runs it when the
// bundle is the program itself (`node dist/cli-bundle/main.js --help`).
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.ts';

export { main };

function isProgram() {
  try {
    // This module is the bundle's main.js; a relative URL is the one import.meta use the build lets through.
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(new URL('./main.js', import.meta.url));
  } catch {
    return false;
  }
}

if (isProgram()) process.exitCode = await main(process.argv);
