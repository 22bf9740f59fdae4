import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { qwen3Directory } from '../support/qwen3.js';

const run = promisify(execFile);
const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('the gymnast command', () => {
  it('prints help, naming its commands', async () => {
    const { stdout } = await run(process.execPath, [bin, '--help']);
    assert.match(stdout, /Usage: gymnast/);
    assert.match(stdout, /environments/);
  });

  it("explains in collect's help, once, the pass@k and mean@k of the table it prints at the end, and their unit", async () => {
    const { stdout } = await run(process.execPath, [bin, 'collect', '--help']);
    assert.match(stdout, /rates in percent/);
    assert.equal(stdout.match(/^ {2}pass@k +\S/gm)?.length, 1, stdout);
    assert.match(stdout, /^ {2}pass@1\[avg-of-k\] +mean@k: /m);
  });

  it('prints the package version', async () => {
    const { stdout } = await run(process.execPath, [bin, '--version']);
    assert.equal(stdout.trim(), manifest.version);
  });

  it('lists the built-in environments as JSON', async () => {
    const { stdout } = await run(process.execPath, [bin, 'environments', '--json']);
    const names = (JSON.parse(stdout) as { name: string }[]).map((entry) => entry.name);
    assert.deepEqual(names, ['math', 'sliding-puzzle', 'calculator', 'session-counter', 'code', 'code-agent', 'arithmetic']);
  });

  it('renders a NeMo Gym row to the exact prompt ids NeMo RL derived', async () => {
    const golden = JSON.parse(readFileSync(new URL('../fixtures/nemo-rl/test_nemo_gym_sanity.json', import.meta.url), 'utf8'));
    const file = join(mkdtempSync(join(tmpdir(), 'gymnast-render-')), 'rows.jsonl');
    writeFileSync(file, golden.input.map((row: unknown) => JSON.stringify(row)).join('\n'));
    const { stdout } = await run(process.execPath, [bin, 'render', '--tokenizer', qwen3Directory, '--input', file, '--line', '2']);
    const rendered = JSON.parse(stdout) as { text: string; token_ids: number[] };
    assert.deepEqual(rendered.token_ids, golden.expected_output[1].input_message_log[0].token_ids);
    assert.ok(rendered.text.endsWith('<|im_start|>assistant\n'));

    const { stdout: withKwargs } = await run(process.execPath, [
      bin,
      'render',
      '--tokenizer',
      qwen3Directory,
      '--input',
      file,
      '--chat-template-kwargs',
      '{"enable_thinking": false}',
    ]);
    assert.ok((JSON.parse(withKwargs) as { text: string }).text.endsWith('<think>\n\n</think>\n\n'));
  });

  it('names the file and line of a row it cannot render', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gymnast-render-')), 'bad.jsonl');
    writeFileSync(file, '{"responses_create_params": {"input": []}}\n{"responses_create_params": {}}\n');
    await assert.rejects(
      run(process.execPath, [bin, 'render', '--tokenizer', qwen3Directory, '--input', file, '--line', '2']),
      (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 1);
        assert.match(error.stderr, /bad\.jsonl:2: responses_create_params\.input/);
        return true;
      },
    );
  });

  it('exits non-zero with a message on an unknown command', async () => {
    await assert.rejects(run(process.execPath, [bin, 'nope']), (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 1);
      assert.match(error.stderr, /unknown command 'nope'/);
      return true;
    });
  });
});
