/*
 * `npm run mutate [-- module...]`: mutation-test the named modules of stryker.config.mjs one after
 * another (all of them when none is named), each in its own Stryker run so a run stays small.
 */
import { spawnSync } from 'node:child_process';
import { modules } from '../stryker.config.mjs';

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in modules));
if (unknown.length > 0) {
  console.error(`npm run mutate: unknown module ${unknown.map((name) => `"${name}"`).join(', ')}; one of: ${Object.keys(modules).join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of asked.length > 0 ? asked : Object.keys(modules)) {
  console.log(`\n== mutating ${name}`);
  const run = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs'], { stdio: 'inherit', env: { ...process.env, MUTATE_MODULE: name } });
  if (run.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
