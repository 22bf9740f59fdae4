import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Fault, InferenceServer } from '../../src/testing/index.js';
import { suiteServer } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';
import { gymnast } from '../support/run-cli.js';

const input = fileURLToPath(new URL('../../examples/arithmetic.jsonl', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'gymnast-exit-codes-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).length;

let outputs = 0;
/** `gymnast collect` of 4 rows × 2 against the test server, into a new output unless given. */
async function collect(server: InferenceServer, args: readonly string[], output = join(dir, `${outputs++}`, 'rollouts.jsonl')) {
  const common = [
    'collect',
    '-i',
    input,
    '-o',
    output,
    '--limit',
    '4',
    '--num-repeats',
    '2',
    '--policy',
    'vllm-completions',
    '--base-url',
    server.url,
    '--tokenizer',
    qwen3Directory,
    '--max-tokens',
    '16',
    '--request-attempts',
    '1',
  ];
  return { ...(await gymnast(...common, ...args)), output, failures: output.replace('.jsonl', '_failures.jsonl') };
}

/** Every request after the model lookup fails with `fault`. */
function failEveryRollout(server: InferenceServer, fault: Fault): void {
  server.faults.clear();
  server.faults.inject({ kind: 'latency', ms: 0 });
  server.faults.inject(fault, 1_000);
}

// NeMo Gym stops the run on a failed /run (002 rollout_collection.py run_examples: raise_for_status),
// so its exit says whether every rollout came back. gymnast writes the failure and goes on; its exit
// code must say the same: a run with failures left is not finished.
describe('collect exits non-zero while rollouts failed (002 rollout_collection.py run_examples: a failed /run stops the run)', () => {
  const server = suiteServer();

  it('exits 75 while failures remain that --resume would retry, and 0 once --resume ran them', async () => {
    failEveryRollout(server(), { kind: 'status', status: 503 });
    const failed = await collect(server(), []);
    assert.equal(failed.code, 75, failed.stderr);
    assert.equal(lines(failed.failures), 8);
    assert.match(
      failed.stderr,
      /gymnast: retryable-failures: 8 of 8 rollouts failed, more than --fail-on-error 0 allows; --resume would run all of them again: run the same command with --resume/,
    );

    server().faults.clear();
    const resumed = await collect(server(), ['--resume'], failed.output);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(lines(failed.output), 8);
  });

  it('keeps a 408, 409 or 429 retryable: the server was busy or timed out, not refusing the request; exits 75, and --resume runs them', async () => {
    server().faults.clear();
    server().faults.inject({ kind: 'latency', ms: 0 });
    for (let i = 0; i < 300; i++) for (const status of [408, 409, 429]) server().faults.inject({ kind: 'status', status });
    const failed = await collect(server(), []);
    assert.equal(failed.code, 75, failed.stderr);
    const failures = readFileSync(failed.failures, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { error: { status: number }; _ng_failure_terminal?: boolean });
    assert.deepEqual([...new Set(failures.map((failure) => failure.error.status))].sort(), [408, 409, 429]);
    assert.deepEqual(
      failures.filter((failure) => failure._ng_failure_terminal === true),
      [],
      'none is terminal',
    );

    server().faults.clear();
    const resumed = await collect(server(), ['--resume'], failed.output);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(lines(failed.output), 8);
  });

  it('exits 1 when the failures left will not be retried (terminal, or out of attempts)', async () => {
    failEveryRollout(server(), { kind: 'status', status: 400, message: 'bad request' });
    const terminal = await collect(server(), []);
    assert.equal(terminal.code, 1, terminal.stderr);
    assert.match(terminal.stderr, /gymnast: failed-rollouts: 8 of 8 rollouts failed, more than --fail-on-error 0 allows, and none will be retried/);

    failEveryRollout(server(), { kind: 'status', status: 503 });
    const exhausted = await collect(server(), ['--max-attempts', '1']);
    assert.equal(exhausted.code, 1, exhausted.stderr);
    assert.match(exhausted.stderr, /failed-rollouts: 8 of 8 rollouts failed/);
  });

  it('--fail-on-error tunes the threshold: a count or a fraction of the planned rollouts', async () => {
    failEveryRollout(server(), { kind: 'status', status: 503 });
    // Every rollout failed, so every task is unhealthy too: that gate is opened here to see this one alone.
    const allowed = await collect(server(), ['--fail-on-error', '8', '--max-unhealthy', '8']);
    assert.equal(allowed.code, 0, allowed.stderr);
    failEveryRollout(server(), { kind: 'status', status: 503 });
    const fraction = await collect(server(), ['--fail-on-error', '0.5', '--max-unhealthy', '8']);
    assert.equal(fraction.code, 75, fraction.stderr);
    assert.match(fraction.stderr, /8 of 8 rollouts failed, more than --fail-on-error 0\.5 \(4 of 8\) allows/);
  });
});
