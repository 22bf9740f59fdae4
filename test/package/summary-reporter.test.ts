import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const testScript = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { test: string } }).scripts.test;

const files: Record<string, string> = {
  'passing.test.mjs': `
import { describe, it } from 'node:test';
console.log('a line a passing file prints');
describe('arithmetic', () => {
  for (let i = 0; i < 120; i++) it(\`adds \${i}\`, () => {});
});
`,
  'failing.test.mjs': `
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
console.error('a line the failing file prints');
describe('rows', () => {
  describe('reading', () => {
    it('keeps the reward', () => assert.deepEqual({ reward: 1 }, { reward: 0.5 }));
    it('keeps the id', () => {});
  });
});
`,
  'crashing.test.mjs': `
process.stderr.write('the reason the file crashed\\n');
process.exit(3);
`,
  'skipping.test.mjs': `
import { describe, it } from 'node:test';
describe('in a browser', { skip: 'no Chromium at /nowhere/chromium (apt-get install chromium)' }, () => {
  it('renders', () => {});
});
it('on FIFOs', { skip: 'no FIFOs here' }, () => {});
it('on more FIFOs', { skip: 'no FIFOs here' }, () => {});
`,
};

/** node --test over `names` with the reporter npm test names, as npm test runs it; its stdout, whatever the exit. */
function report(dir: string, names: string[]): Promise<string> {
  const reporter = /--test-reporter=(\S+)/.exec(testScript)?.[1];
  assert.ok(reporter, `npm test names a reporter: ${testScript}`);
  return new Promise((resolve) => {
    // Without the variable that tells a test file's process node:test runs it: this run is a parent of its own.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    execFile(process.execPath, ['--test', `--test-reporter=${join(root, reporter)}`, ...names], { cwd: dir, env }, (_error, stdout) => resolve(stdout));
  });
}

describe("npm test's reporter", () => {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-reporter-'));
  let passing = '';
  let mixed = '';

  before(async () => {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    [passing, mixed] = await Promise.all([report(dir, ['passing.test.mjs']), report(dir, Object.keys(files))]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints a passing run as dots and one line of counts and time, without what the tests printed', () => {
    const lines = passing.trim().split('\n');
    assert.ok(lines.length <= 4, `120 passing tests take ${lines.length} lines:\n${passing}`);
    assert.equal(lines.slice(0, -1).join('').trim(), '.'.repeat(120));
    assert.match(lines.at(-1)!, /^✔ 120 tests in 1 files: 120 passed, 0 failed, 0 cancelled, 0 skipped, 0 todo \(\d+\.\d s\)$/);
    assert.doesNotMatch(passing, /a line a passing file prints/);
  });

  it('prints each failure in full: file, suites, test, the diff and the stack with its line', () => {
    assert.match(mixed, /✖ failing\.test\.mjs › rows › reading › keeps the reward \(\d+ ms\)\n/);
    assert.match(mixed, /\+ actual - expected[\s\S]*\+ {3}reward: 1\n[\s\S]*- {3}reward: 0\.5/);
    assert.match(mixed, /at .*failing\.test\.mjs:7:/);
    assert.doesNotMatch(mixed, /✖ .*› keeps the id/);
  });

  it('names a file whose process failed, and shows what each failing file printed', () => {
    assert.match(mixed, /✖ crashing\.test\.mjs \(the file\) \(\d+ ms\)\n {2}its process exited with code 3\n/);
    assert.match(mixed, /── printed by failing\.test\.mjs ──\na line the failing file prints\n/);
    assert.match(mixed, /── printed by crashing\.test\.mjs ──\nthe reason the file crashed\n/);
    assert.doesNotMatch(mixed, /a line a passing file prints/);
  });

  it('ends with the counts, then every skip under the reason it gave', () => {
    const summary = mixed.slice(mixed.lastIndexOf('\n✖ 1'));
    assert.match(summary, /^\n✖ 125 tests in 4 files: 121 passed, 2 failed, 0 cancelled, 2 skipped, 0 todo \(\d+\.\d s\)\n/);
    assert.match(summary, /\nskipped 1 suite: no Chromium at \/nowhere\/chromium \(apt-get install chromium\)\n {2}skipping\.test\.mjs › in a browser\n/);
    assert.match(summary, /\nskipped 2 tests: no FIFOs here\n {2}skipping\.test\.mjs › on FIFOs\n {2}skipping\.test\.mjs › on more FIFOs\n/);
  });
});
