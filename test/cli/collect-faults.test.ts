import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FailureClass } from '../../src/core/failure-class.js';
import type { Fault, InferenceServer } from '../../src/testing/index.js';
import { createSeededRandom } from '../../src/util/seeded-random.js';
import { startServers } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/gymnast.js');
const input = join(root, 'examples/arithmetic.jsonl');
const rows = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
const keyOf = (row: Record<string, unknown>) => `${String(row._ng_task_index)}:${String(row._ng_rollout_index)}`;

/** `gymnast collect` against the test server; resolves with its exit code and output. */
async function collectAgainst(server: InferenceServer, args: readonly string[]) {
  const output = join(mkdtempSync(join(tmpdir(), 'gymnast-faults-')), 'rollouts.jsonl');
  const common = ['collect', '--input', input, '--output', output, '--policy', 'vllm-completions', '--base-url', server.url, '--tokenizer', qwen3Directory, '--max-tokens', '32'];
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...common, ...args]);
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
  let server: InferenceServer;
  before(async () => {
    server = (await startServers(1, { respond: ({ seed }) => `${seed % 100}` }))[0]!;
  });
  after(() => server.close());

  it('--request-timeout bounds a hung request: the rollout fails as a timeout in about that long, not 300 s', async () => {
    server.faults.clear();
    server.faults.inject({ kind: 'latency', ms: 0 }); // the model lookup
    server.faults.inject({ kind: 'hang' }, 2);
    // 2 s: a healthy request on a busy machine (the model lookup among them) stays well inside it.
    const result = await collectAgainst(server, ['--limit', '1', '--request-timeout', '2', '--request-attempts', '2']);
    assert.equal(result.code, 0, result.stderr);
    const [failure] = rows(result.output.replace('.jsonl', '_failures.jsonl'));
    assert.equal(failure?._ng_failure_class, 'timeout');
    assert.match(String((failure?.error as { message?: string }).message), /\b2 ?s|2000 ?ms/);
    // The rollout's own time, not the process's: starting a CLI on a loaded machine is no part of the deadline.
    const ms = Number(failure?.duration_ms);
    assert.ok(ms >= 2 * 2000 && ms < 2 * 2000 + 5000, `two attempts of 2 s took ${ms} ms`);
  });

  it('under ~10% mixed faults (5xx, 429 with Retry-After, resets, hangs, cut bodies) every rollout ends once: a success or a typed failure, within its deadline', async () => {
    server.faults.clear();
    injectMixedFaults(server, 4000, 0.1);
    // Deadlines a busy 2-core machine meets with room to spare: a healthy request takes milliseconds,
    // so only the injected hangs reach them, however loaded the machine is.
    const rolloutTimeoutSeconds = 8;
    const result = await collectAgainst(server, ['--num-repeats', '20', '--concurrency', '32', '--request-timeout', '2', '--request-attempts', '2', '--rollout-timeout', String(rolloutTimeoutSeconds), '--seed', '1']);
    assert.equal(result.code, 0, result.stderr);
    const successes = rows(result.output);
    const failures = rows(result.output.replace('.jsonl', '_failures.jsonl'));
    const keys = [...successes, ...failures].map(keyOf);
    assert.equal(keys.length, 16 * 20, 'every planned rollout has exactly one row');
    assert.equal(new Set(keys).size, keys.length, 'no rollout written twice');
    assert.ok(successes.length > failures.length, `${successes.length} successes, ${failures.length} failures`);
    for (const failure of failures) assert.ok(FailureClass.safeParse(failure._ng_failure_class).success, `typed failure class: ${String(failure._ng_failure_class)}`);
    // A timer fires late by however long the event loop was busy: a loaded machine adds seconds, never a deadline's worth.
    for (const row of [...successes, ...failures]) assert.ok(Number(row.duration_ms) <= rolloutTimeoutSeconds * 1000 + 3000, `${keyOf(row)} took ${String(row.duration_ms)} ms`);
    assert.match(result.stderr, /[1-9]\d* retries/, 'the faults were retried');
  });
});
