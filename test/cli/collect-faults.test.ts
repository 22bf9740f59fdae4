import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FailureClass } from '../../src/core/failure-class.js';
import type { Fault, InferenceServer } from '../../src/testing/index.js';
import { createSeededRandom } from '../../src/util/seeded-random.js';
import { suiteServer } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/gymnast.js');
const input = join(root, 'examples/arithmetic.jsonl');
const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const keyOf = (row: Record<string, unknown>) => `${String(row._ng_task_index)}:${String(row._ng_rollout_index)}`;

/**
 * `gymnast collect` against the test server (into a new output unless given); resolves with its exit
 * code and output. A run still going after 3 minutes (a deadline that never fired) is killed, and
 * fails its spec by its exit code instead of hanging the file.
 */
async function collectAgainst(
  server: InferenceServer,
  args: readonly string[],
  output = join(mkdtempSync(join(tmpdir(), 'gymnast-faults-')), 'rollouts.jsonl'),
) {
  const common = [
    'collect',
    '--input',
    input,
    '--output',
    output,
    '--policy',
    'vllm-completions',
    '--base-url',
    server.url,
    '--tokenizer',
    qwen3Directory,
    '--max-tokens',
    '32',
  ];
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...common, ...args], { timeout: 180_000 });
    return { code: 0, stdout, stderr, output };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr, output };
  }
}

/** ~`rate` of the next `count` requests get one of the faults a real fleet shows; the rest are answered normally. */
function injectMixedFaults(server: InferenceServer, count: number, rate: number): void {
  const random = createSeededRandom(9);
  const faults: Fault[] = [
    { kind: 'status', status: 503 },
    { kind: 'status', status: 500 },
    { kind: 'status', status: 429, retryAfterSeconds: 0.05 },
    { kind: 'reset' },
    { kind: 'hang' },
    { kind: 'truncate' },
  ];
  for (let i = 0; i < count; i++) server.faults.inject(random.next() < rate ? random.pick(faults) : { kind: 'latency', ms: 0 });
}

describe('a policy server that fails', () => {
  const server = suiteServer();

  it('--request-timeout bounds a hung request: the rollout fails as a timeout in about that long, not 300 s', async () => {
    server().faults.clear();
    server().faults.inject({ kind: 'latency', ms: 0 }); // the model lookup
    server().faults.inject({ kind: 'hang' }, 2);
    // 2 s: a healthy request on a busy machine (the model lookup among them) stays well inside it.
    // Its one rollout is meant to fail: allowed, so the exit code says the run finished.
    const result = await collectAgainst(server(), [
      '--limit',
      '1',
      '--request-timeout',
      '2',
      '--request-attempts',
      '2',
      '--max-unhealthy',
      '1',
      '--fail-on-error',
      '1',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const [failure] = rows(result.output.replace('.jsonl', '_failures.jsonl'));
    assert.equal(failure?._ng_failure_class, 'timeout');
    assert.match(String((failure?.error as { message?: string } | undefined)?.message), /\b2 ?s|2000 ?ms/);
    // The rollout's own time, not the process's: starting a CLI on a loaded machine is no part of the
    // deadline. Two whole deadlines at least; at most far short of the 300 s default, however late a
    // loaded machine fires the timers (the message above already names the 2 s).
    const ms = Number(failure?.duration_ms);
    assert.ok(ms >= 2 * 2000 && ms < 2 * 2000 + 20_000, `two attempts of 2 s took ${ms} ms`);
  });

  it('under ~10% mixed faults (5xx, 429 with Retry-After, resets, hangs, cut bodies) every rollout ends once: a success or a typed failure, within its deadline', async () => {
    server().faults.clear();
    injectMixedFaults(server(), 4000, 0.1);
    // Deadlines a busy 2-core machine meets with room to spare: a healthy request takes milliseconds,
    // so only the injected hangs reach them, however loaded the machine is.
    const rolloutTimeoutSeconds = 8;
    const result = await collectAgainst(server(), [
      '--num-repeats',
      '20',
      '--concurrency',
      '32',
      '--request-timeout',
      '2',
      '--request-attempts',
      '2',
      '--rollout-timeout',
      String(rolloutTimeoutSeconds),
      '--seed',
      '1',
      '--fail-on-error',
      '0.5',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const successes = rows(result.output);
    const failures = rows(result.output.replace('.jsonl', '_failures.jsonl'));
    const keys = [...successes, ...failures].map(keyOf);
    assert.equal(keys.length, 16 * 20, 'every planned rollout has exactly one row');
    assert.equal(new Set(keys).size, keys.length, 'no rollout written twice');
    assert.ok(successes.length > failures.length, `${successes.length} successes, ${failures.length} failures`);
    for (const failure of failures)
      assert.ok(FailureClass.safeParse(failure._ng_failure_class).success, `typed failure class: ${String(failure._ng_failure_class)}`);
    // A timer fires late by however long the event loop was busy: a loaded machine adds seconds, never a deadline's worth.
    for (const row of [...successes, ...failures])
      assert.ok(Number(row.duration_ms) <= rolloutTimeoutSeconds * 1000 + 3000, `${keyOf(row)} took ${String(row.duration_ms)} ms`);
    assert.match(result.stderr, /[1-9]\d* retries/, 'the faults were retried');
  });

  it("whose replies carry token ids outside the vocabulary: no rollout is written with a reward, each fails as the server's fault (not terminal), and --resume runs them once the server is right", async () => {
    server().faults.clear();
    server().faults.inject({ kind: 'corrupt-token', at: 0, id: 151_999 }, 1_000);
    const first = await collectAgainst(server(), ['--limit', '8', '--request-attempts', '2', '--concurrency', '4']);
    assert.equal(first.code, 75, 'every rollout failed, and --resume would retry them');
    assert.equal(rows(first.output).length, 0, 'no success row');
    const failures = rows(first.output.replace('.jsonl', '_failures.jsonl'));
    assert.equal(failures.length, 8);
    for (const failure of failures) {
      assert.equal(failure._ng_failure_class, 'policy-error');
      assert.equal(failure._ng_failure_terminal, undefined, 'resume retries it');
      assert.match(
        String((failure.error as { message?: string }).message),
        /^vllm-completions http:\/\/127\.0\.0\.1:\d+: reply choices\[0\]\.token_ids\[0\] = 151999 is outside the vocabulary \[0, 151669\)$/,
      );
    }
    assert.match(first.stderr, /[1-9]\d* retries/, 'each bad reply was asked for again');

    server().faults.clear();
    const resumed = await collectAgainst(server(), ['--limit', '8', '--request-attempts', '2', '--concurrency', '4', '--resume'], first.output);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(rows(first.output).length, 8, 'every rollout ran again and succeeded');
  });
});

describe('a policy server that refuses token ids in a prompt', () => {
  // A wrong answer each time, so every rollout has a second turn, whose prompt holds the first reply.
  const server = suiteServer(() => '0');
  const refusal: Fault = { kind: 'status', status: 400, message: 'prompt[40] is 151999: token ids must be from 0 to 151668' };
  const ok: Fault = { kind: 'latency', ms: 0 };

  it("on a continuing turn is the server's fault (its own earlier reply is in the prompt): the failure is not terminal, and --resume runs the rollout again", async () => {
    server().faults.clear();
    server().faults.inject(ok); // the model lookup
    server().faults.inject(ok); // the first turn
    server().faults.inject(refusal);
    const first = await collectAgainst(server(), ['--limit', '1']);
    const [failure] = rows(first.output.replace('.jsonl', '_failures.jsonl'));
    assert.equal(failure?._ng_failure_class, 'policy-error');
    assert.equal(failure?._ng_failure_terminal, undefined);
    assert.match(String((failure?.error as { message?: string } | undefined)?.message), /HTTP 400: prompt\[40\] is 151999.*: its fault, not the input's/);
    const resumed = await collectAgainst(server(), ['--limit', '1', '--resume'], first.output);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(rows(first.output).length, 1);
  });

  it("on the first turn is the input's fault: terminal, and --resume does not send it again", async () => {
    server().faults.clear();
    server().faults.inject(ok);
    server().faults.inject(refusal);
    const first = await collectAgainst(server(), ['--limit', '1']);
    const [failure] = rows(first.output.replace('.jsonl', '_failures.jsonl'));
    assert.equal(failure?._ng_failure_terminal, true);
    const resumed = await collectAgainst(server(), ['--limit', '1', '--resume'], first.output);
    assert.match(resumed.stderr, /1 rollouts failed 3 times \(or terminally\) and were not retried/);
    assert.equal(rows(first.output).length, 0);
  });
});
