import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/gymnast.js');
const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Starts a long collection, sends SIGINT `times` times once rollouts are flowing, and waits for it to exit. */
async function interrupt(output: string, times: number): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(
    process.execPath,
    [bin, 'collect', '--input', join(root, 'examples/arithmetic.jsonl'), '--output', output, '--num-repeats', '24', '--concurrency', '16'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  while (!/\[collect\] [1-9]/.test(stderr)) await new Promise((resolve) => setTimeout(resolve, 20));
  for (let i = 0; i < times; i++) {
    child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const [code] = (await exited) as [number | null];
  return { code, stderr };
}

async function resume(output: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [bin, 'collect', '--input', join(root, 'examples/arithmetic.jsonl'), '--output', output, '--num-repeats', '24', '--concurrency', '16', '--resume'],
    { stdio: 'ignore' },
  );
  const [code] = (await once(child, 'exit')) as [number];
  assert.equal(code, 0);
}

function assertEveryRolloutOnce(output: string): void {
  const keys = rows(output).map((row) => `${row._ng_task_index}:${row._ng_rollout_index}`);
  assert.equal(keys.length, 16 * 24);
  assert.equal(new Set(keys).size, keys.length);
}

describe('Ctrl-C during collect', () => {
  it('stops admitting, lets rollouts in flight finish, and leaves files that resume to every rollout once', async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-sigint-')), 'rollouts.jsonl');
    const { code, stderr } = await interrupt(output, 1);
    assert.equal(code, 130, 'an interrupted run does not exit as finished');
    assert.match(stderr, /aborted: interrupted before every rollout ran: .* --resume continues/);
    assert.match(stderr, /stopping: finishing the rollouts in flight/);
    assert.ok(rows(output).length < 16 * 24);
    assert.equal(rows(output.replace('.jsonl', '_failures.jsonl')).length, 0, 'nothing in flight was cut');
    await resume(output);
    assertEveryRolloutOnce(output);
  });

  it('aborts rollouts in flight on a second Ctrl-C, recording them as aborted, and a resume runs them again', async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-sigint-')), 'rollouts.jsonl');
    const { code } = await interrupt(output, 2);
    assert.equal(code, 130);
    const aborted = rows(output.replace('.jsonl', '_failures.jsonl'));
    assert.ok(aborted.every((row) => row._ng_failure_class === 'aborted'));
    await resume(output);
    assertEveryRolloutOnce(output);
  });
});
