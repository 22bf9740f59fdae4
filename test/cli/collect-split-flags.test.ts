import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gymnast } from '../support/run-cli.js';

const config = fileURLToPath(new URL('../../examples/nemo-gym-config.yaml', import.meta.url));

/** `collect --config X --split example ARGS…` into a fresh folder: its exit code, stderr, and whether the folder was made. */
async function split(...args: string[]) {
  const output = join(mkdtempSync(join(tmpdir(), 'gymnast-split-flags-')), 'out');
  const result = await gymnast('collect', '--config', config, '--split', 'example', '--output', output, ...args);
  return { ...result, wrote: existsSync(output) };
}

/**
 * With --split the config's agents sample every row with their own model and settings; a policy or
 * episode flag was taken and silently ignored (`--max-turns 3` ran 8 turns, the agent's default).
 */
describe('collect --split refuses the policy and episode flags its config sets, naming the key to set instead', () => {
  it('one flag, even at its default value: what to set, on which server, in which file', async () => {
    for (const [args, message] of [
      [['--max-turns', '8'], `--max-turns: with --split the config's agents run the rows; set max_turns on the agent in ${config}`],
      [
        ['--policy', 'vllm-completions'],
        `--policy: with --split the config's agents run the rows; set use_completions_api (or gymnast_policy) on the agent's model server in ${config}`,
      ],
      [['--retry-budget', '1'], `--retry-budget: with --split the config's agents run the rows; ${config} has no key for it: drop it`],
    ] as const) {
      const result = await split(...args);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stderr, `gymnast: config: ${message}\n`);
      assert.equal(result.wrote, false, 'refused before any server started or dataset was prepared');
    }
  });

  it('every flag given, at once', async () => {
    const result = await split(
      '--base-url',
      'http://127.0.0.1:9',
      '--model',
      'm',
      '--tokenizer',
      'dir',
      '--api-key',
      'k',
      '--max-seq-len',
      '512',
      '--max-tokens',
      '16',
      '--on-max-tokens',
      'end',
      '--temperature',
      '0.5',
      '--seed',
      '3',
      '--tool-call-parser',
      'hermes',
    );
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stderr.trimEnd().split('\n');
    assert.equal(lines[0], 'gymnast: config: 10 flags --split cannot take:');
    const named = lines.slice(1).map((line) => /^ {2}(--[a-z-]+): with --split the config's agents run the rows; set (\S+) /.exec(line)?.slice(1, 3).join(' '));
    assert.deepEqual(named, [
      '--base-url base_url',
      '--model model',
      '--tokenizer tokenizer',
      '--api-key api_key',
      '--max-seq-len max_seq_len',
      '--max-tokens max_tokens',
      '--on-max-tokens on_max_tokens',
      '--temperature temperature',
      '--seed seed',
      '--tool-call-parser tool_call_parser',
    ]);
    assert.equal(result.wrote, false);
  });
});
