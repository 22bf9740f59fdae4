import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * Preloaded by `npm test` (package.json): the suite's tokenizer cache goes to a folder of its own, not
 * the user's ~/.cache/gymnast. The test runner sets it once; the test processes it starts inherit it,
 * and the runner removes it when it exits.
 */
if (process.env.GYMNAST_CACHE_DIR === undefined) {
  const folder = mkdtempSync(join(tmpdir(), 'gymnast-test-cache-'));
  process.env.GYMNAST_CACHE_DIR = folder;
  process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
}
