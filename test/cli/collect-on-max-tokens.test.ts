import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/gymnast.js');
const input = join(root, 'examples/arithmetic.jsonl');

interface Row {
  termination: { kind: string };
  turns: { generation_cut?: string }[];
}

/** Collects 4 arithmetic rollouts from the embedded model with 2 tokens a generation (every one is cut), plus `args`. */
async function collect(args: readonly string[] = [], config?: string): Promise<{ rows: Row[]; stdout: string; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-max-tokens-'));
  const output = join(dir, 'rollouts.jsonl');
  const configArgs = config === undefined ? [] : ['--config', join(dir, 'run.yaml')];
  if (config !== undefined) writeFileSync(join(dir, 'run.yaml'), config);
  const { stdout } = await run(process.execPath, [
    bin,
    'collect',
    '--input',
    input,
    '--output',
    output,
    '--limit',
    '4',
    '--max-tokens',
    '2',
    '--seed',
    '1',
    ...configArgs,
    ...args,
  ]);
  const rows = readFileSync(output, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row);
  return { rows, stdout, output };
}

describe('gymnast collect: a generation cut by max_tokens', { concurrency: 3 }, () => {
  // NeMo RL's rollouts.py (seeds 000, 001): run_multi_turn_rollout and run_sample_multi_turn_rollout step the
  // environment on every generation and end a sample only on `terminateds` or the max_seq_len check.
  it("by default goes on to the environment and the episode goes on, as NeMo RL's loops; the run summary prints the limits", async () => {
    const { rows, stdout } = await collect();
    assert.ok(
      rows.every((row) => row.turns[0]!.generation_cut === 'max-tokens'),
      'every first generation was cut, and the turn says so',
    );
    assert.ok(
      rows.some((row) => row.turns.length > 1),
      'an episode went on after a cut generation',
    );
    assert.ok(rows.every((row) => row.termination.kind !== 'max-tokens'));
    assert.match(
      stdout,
      /^limits: --max-turns 8 \(NeMo RL: unbounded\), --concurrency 32 \(NeMo Gym: unbounded\), --max-seq-len \d+, --on-max-tokens continue$/m,
    );
  });

  it('--on-max-tokens end scores the cut turn, then ends the episode as max-tokens', async () => {
    const { rows, stdout } = await collect(['--on-max-tokens', 'end', '--max-turns', '3', '-c', '2']);
    assert.ok(
      rows.every((row) => row.turns.length === 1),
      'no turn after a cut generation',
    );
    assert.deepEqual(
      rows.filter((row) => row.termination.kind !== 'env-done').map((row) => row.termination.kind),
      ['max-tokens', 'max-tokens', 'max-tokens'],
      'the one the environment ended itself ends as it said',
    );
    assert.match(stdout, /^limits: --max-turns 3 \(NeMo RL: unbounded\), --concurrency 2 \(NeMo Gym: unbounded\), .*--on-max-tokens end$/m);
  });

  it('takes on-max-tokens from a config file, and refuses to resume a run under the other choice', async () => {
    const { rows, output } = await collect([], 'on-max-tokens: end\n');
    assert.ok(rows.every((row) => row.turns.length === 1) && rows.some((row) => row.termination.kind === 'max-tokens'));
    const resumed = await run(process.execPath, [
      bin,
      'collect',
      '--input',
      input,
      '--output',
      output,
      '--limit',
      '4',
      '--max-tokens',
      '2',
      '--seed',
      '1',
      '--resume',
    ]).then(
      () => assert.fail('resumed under another choice'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(resumed.code, 1);
    assert.match(resumed.stderr, /on_max_tokens was "end", now "continue"/);
  });
});
