import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { seededWords, type InferenceServer } from '../../src/testing/index.js';
import { startServers } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const examples = readdirSync(join(root, 'examples')).filter((name) => name.endsWith('.jsonl'));
/**
 * Examples in formats the embedded model does not know, whose episodes outgrow its 256-token context
 * (examples/README.md says they need a served model). The test server plays a Qwen3 model for them.
 */
const needServedModel = new Set(['calculator.jsonl', 'sliding-puzzle.jsonl', 'code.jsonl', 'code-agent.jsonl']);

describe('the shipped examples', () => {
  let server: InferenceServer;
  before(async () => {
    server = (await startServers(1, { respond: seededWords }))[0]!;
  });
  after(() => server.close());

  for (const example of examples) {
    const served = needServedModel.has(example);
    it(`${example} validates and runs end to end (on ${served ? 'a served model' : 'the embedded model'}), within collect's default --max-unhealthy`, async () => {
      const output = join(mkdtempSync(join(tmpdir(), 'gymnast-example-')), 'rollouts.jsonl');
      const policy = served ? ['--policy', 'vllm-completions', '--base-url', server.url, '--tokenizer', qwen3Directory] : [];
      const { stdout, stderr } = await run(process.execPath, [
        join(root, 'bin/gymnast.js'),
        'collect',
        '--input',
        join(root, 'examples', example),
        '--output',
        output,
        '--limit',
        '3',
        '--max-turns',
        '4',
        '--fail-on-error',
        '0',
        ...policy,
      ]);
      assert.match(stdout, /3 rollouts in .*, 0 failures/);
      assert.match(stderr, /0 unhealthy, .*; within --max-unhealthy 0\n/);
    });
  }
});
