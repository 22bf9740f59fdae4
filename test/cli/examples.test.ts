import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const examples = readdirSync(join(root, 'examples')).filter((name) => name.endsWith('.jsonl'));

describe('the shipped examples', () => {
  for (const example of examples) {
    it(`${example} validates and runs end to end (on the embedded model)`, async () => {
      const output = join(mkdtempSync(join(tmpdir(), 'gymnast-example-')), 'rollouts.jsonl');
      const { stdout } = await run(process.execPath, [join(root, 'bin/gymnast.js'), 'collect', '--input', join(root, 'examples', example), '--output', output, '--limit', '3', '--max-turns', '4', '--fail-on-error', '0']);
      assert.match(stdout, /3 rollouts in .*, 0 failures/);
    });
  }
});
