// The CLI bundle's entry (see bundle-cli.mjs): exports main for bin/gymnast.js, and runs it when the
// bundle is the program itself (`node dist/cli-bundle/main.js --help`).
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { main } from '../src/cli/main.ts';

export { main };

function isProgram() {
  try {
    return process.argv[1] !== undefined && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url;
  } catch {
    return false;
  }
}

if (isProgram()) process.exitCode = await main(process.argv);
