import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { InferenceServer } from '../../src/testing/index.js';
import { startServers } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/gymnast.js');
const input = join(root, 'examples/arithmetic.jsonl');
const SECRET = 'SECRET-d41d8cd9';

/** What a run left: its exit code, output, every file of its folder, and its lock file as seen while it ran. */
interface SecretRun {
  code: number | null;
  stdout: string;
  stderr: string;
  files: Record<string, string>;
  lock: string | undefined;
}

/** `gymnast collect ARGS` into a fresh folder, its lock file read as soon as it appears. */
async function collect(args: readonly string[]): Promise<SecretRun> {
  const folder = mkdtempSync(join(tmpdir(), 'gymnast-secrets-'));
  const output = join(folder, 'rollouts.jsonl');
  // The runs fail on purpose: their failed and unhealthy rollouts are allowed, so the exit code says each run finished.
  const child = spawn(process.execPath, [bin, 'collect', '--input', input, '--output', output, '--max-unhealthy', '16', '--fail-on-error', '16', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  let done = false;
  void exited.then(() => (done = true));
  const lockPath = join(folder, 'rollouts_run.lock');
  let lock: string | undefined;
  while (!done && lock === undefined) {
    if (existsSync(lockPath)) lock = readFileSync(lockPath, 'utf8') || undefined;
    await sleep(10);
  }
  const code = await exited;
  const files = Object.fromEntries(readdirSync(folder).map((name) => [name, readFileSync(join(folder, name), 'utf8')]));
  return { code, stdout, stderr, files, lock };
}

function assertNoSecret(run: SecretRun): void {
  for (const [name, text] of Object.entries(run.files))
    assert.ok(!text.includes(SECRET), `${name} holds the secret:\n${text.slice(text.indexOf(SECRET) - 300, text.indexOf(SECRET) + 50)}`);
  assert.ok(!run.stdout.includes(SECRET), `stdout holds the secret:\n${run.stdout}`);
  assert.ok(!run.stderr.includes(SECRET), `stderr holds the secret:\n${run.stderr}`);
}

const failureRows = (run: SecretRun) =>
  (run.files['rollouts_failures.jsonl'] ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { _ng_failure_class: string; error: { message: string } });

/** A port nothing listens on: bound once, then let go. */
async function closedPort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('credentials in a URL never reach the run folder, stdout or stderr', () => {
  let server: InferenceServer;
  before(async () => {
    server = (await startServers(1, { respond: () => '87' }))[0]!;
  });
  after(() => server.close());

  it('a policy server named as http://user:KEY@host: its answers, its failures (5xx, 4xx echoing the URL, a hang, a reply its sampler could not have made) and the lock file hold no key', async () => {
    const url = server.url.replace('http://', `http://user:${SECRET}@`);
    server.faults.clear();
    server.faults.inject({ kind: 'latency', ms: 0 }); // the model lookup
    server.faults.inject({ kind: 'hang' }); // keeps the run, and its lock, alive until --request-timeout
    server.faults.inject({ kind: 'status', status: 500 });
    server.faults.inject({ kind: 'status', status: 400, message: `bad request to ${url}/v1/completions?api_key=${SECRET}` });
    server.faults.inject({ kind: 'corrupt-token', id: 151_999 });
    const run = await collect([
      '--policy',
      'vllm-completions',
      '--base-url',
      `${url}/v1`,
      '--tokenizer',
      qwen3Directory,
      '--max-tokens',
      '8',
      '--limit',
      '6',
      '--concurrency',
      '1',
      '--request-attempts',
      '1',
      '--request-timeout',
      '3',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.lock !== undefined, 'the lock was read while the run held it');
    assert.match(run.lock, /--base-url http:\/\/\*\*\*@127\.0\.0\.1:\d+\/v1/, 'the lock names the server, not its key');
    const failures = failureRows(run);
    assert.deepEqual(failures.map((row) => row._ng_failure_class).sort(), ['policy-error', 'policy-error', 'policy-error', 'timeout']);
    for (const failure of failures) assert.match(failure.error.message, /http:\/\/\*\*\*@127\.0\.0\.1:\d+/, 'a failure still says which server');
    assertNoSecret(run);
  });

  it('a policy server that is down: the error on stderr names it without its key', async () => {
    const run = await collect([
      '--policy',
      'vllm-completions',
      '--base-url',
      `http://user:${SECRET}@127.0.0.1:${await closedPort()}/v1?api_key=${SECRET}`,
      '--tokenizer',
      qwen3Directory,
      '--limit',
      '2',
      '--request-attempts',
      '1',
    ]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /transport: http:\/\/\*\*\*@127\.0\.0\.1:\d+\/v1\/models\?api_key=\*\*\*: /);
    assertNoSecret(run);
  });

  it('an agent server that is down: its failure rows name it without its key', async () => {
    const run = await collect([
      '--agent-server',
      `arithmetic=http://user:${SECRET}@127.0.0.1:${await closedPort()}?token=${SECRET}`,
      '--limit',
      '2',
      '--request-attempts',
      '1',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const failures = failureRows(run);
    assert.deepEqual(
      failures.map((row) => row._ng_failure_class),
      ['transport', 'transport'],
    );
    assert.match(failures[0]!.error.message, /http:\/\/\*\*\*@127\.0\.0\.1:\d+\/run\?token=\*\*\*/);
    assertNoSecret(run);
  });
});
