import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { suiteServer } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';
import { freePort, RedisServer, redisMissing } from '../support/redis-server.js';

const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/gymnast.js');
const input = join(root, 'examples/arithmetic.jsonl');
/** Rows of examples/arithmetic.jsonl. */
const ROWS = 16;

/** A CLI process of the spec's: its output as it comes, and its exit. */
interface Cli {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(...args: string[]): Cli {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, output: () => output, exited };
}

async function finished(cli: Cli): Promise<{ code: number | null; output: string }> {
  const code = await cli.exited;
  return { code, output: cli.output() };
}

/** A worker on loopback; a short stall timeout so a killed one's jobs run again within the spec. */
function worker(url: string, ...extra: string[]): Cli {
  return start('worker', '--queue', url, '-c', '4', '--stall-timeout', '1', ...extra);
}

/** Stops a worker as an operator does (SIGTERM), and hands back what it said. */
async function stopWorker(cli: Cli): Promise<string> {
  if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGTERM');
  await cli.exited;
  return cli.output();
}

function collectArgs(output: string, repeats: number, ...extra: string[]): string[] {
  return ['collect', '--input', input, '--output', output, '--num-repeats', `${repeats}`, '--seed', '7', '-c', '32', ...extra];
}

function lines(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  // The line being written as this looks (no newline yet) is not a row yet.
  return readFileSync(path, 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const keyOf = (row: Record<string, unknown>) => `${row._ng_task_index}:${row._ng_rollout_index}`;

/** Every planned key lands exactly once, as a result or a failure. */
function assertEveryKeyOnce(output: string, planned: number): void {
  const rows = [...lines(output), ...lines(output.replace('.jsonl', '_failures.jsonl'))];
  const keys = rows.map(keyOf);
  assert.equal(new Set(keys).size, keys.length, 'no key is written twice');
  assert.equal(keys.length, planned, 'every planned key is written');
}

async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function untilAsync(condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function folder(): string {
  return mkdtempSync(join(tmpdir(), 'gymnast-queue-'));
}

const duplicatesDropped = (said: string) => Number(/(\d+) duplicates dropped/.exec(said)?.[1] ?? 0);
/** The outcomes the workers committed, added up from their last lines. */
const committedBy = (said: readonly string[]) => said.reduce((sum, text) => sum + Number(/(\d+) rollouts committed/.exec(text)?.[1] ?? 0), 0);

describe('collect --queue with gymnast worker', { skip: redisMissing }, () => {
  let redis: RedisServer;
  before(async () => (redis = await RedisServer.start()));
  after(async () => redis.stop());

  it('a coordinator and two workers write the same keys, rows and aggregate as a single-machine run, and leave nothing of the run in Redis', async () => {
    const dir = folder();
    const local = join(dir, 'local.jsonl');
    const queued = join(dir, 'queued.jsonl');
    const single = await finished(start(...collectArgs(local, 4)));
    assert.equal(single.code, 0, single.output);
    const workers = [worker(redis.url), worker(redis.url)];
    // A worker says it waits only after its first heartbeat: from then on the coordinator counts it.
    await until(() => workers.every((cli) => /worker \S+ waiting/.test(cli.output())), 'both workers to wait for rollouts');
    const run = await finished(start(...collectArgs(queued, 4, '--queue', redis.url)));
    const said = await Promise.all(workers.map(stopWorker));
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /64 rollouts in .*queued\.jsonl, 0 failures/);
    assert.match(run.output, /2 workers alive/);
    assert.deepEqual(lines(queued).map(keyOf).sort(), lines(local).map(keyOf).sort());
    assert.deepEqual(
      JSON.parse(readFileSync(queued.replace('.jsonl', '_aggregate_metrics.json'), 'utf8')),
      JSON.parse(readFileSync(local.replace('.jsonl', '_aggregate_metrics.json'), 'utf8')),
    );
    assert.deepEqual(lines(queued.replace('.jsonl', '_materialized_inputs.jsonl')), lines(local.replace('.jsonl', '_materialized_inputs.jsonl')));
    assert.equal(committedBy(said), 64, said.join('\n'));
    const client = redis.client();
    try {
      assert.deepEqual(await client.keys('gymnast:run:*'), [], 'a finished run leaves none of its keys');
      assert.equal(await client.llen('gymnast:rollouts:wait'), 0);
    } finally {
      client.disconnect();
    }
  });

  it('a coordinator with no worker alive says so, and its rollouts wait in the queue for the first one to start', async () => {
    const output = join(folder(), 'rollouts.jsonl');
    const coordinator = start(...collectArgs(output, 1, '--queue', redis.url));
    await until(() => /no gymnast worker is alive on redis:\/\/127\.0\.0\.1:\d+\/0: the rollouts wait in the queue/.test(coordinator.output()), 'the notice');
    const late = worker(redis.url);
    const run = await finished(coordinator);
    await stopWorker(late);
    assert.equal(run.code, 0, run.output);
    assertEveryKeyOnce(output, ROWS);
  });

  it('a worker killed with -9 mid-run: its rollouts run again after the stall timeout, and every key lands once', async () => {
    const output = join(folder(), 'rollouts.jsonl');
    const doomed = worker(redis.url);
    const survivor = worker(redis.url);
    const coordinator = start(...collectArgs(output, 6, '--queue', redis.url));
    await until(() => lines(output).length >= 12, 'rows to land');
    doomed.child.kill('SIGKILL');
    const run = await finished(coordinator);
    await stopWorker(survivor);
    assert.equal(run.code, 0, run.output);
    assertEveryKeyOnce(output, ROWS * 6);
  });

  it('a worker stopped with SIGTERM mid-run finishes the rollouts in hand, commits them, and exits 0; the run ends on the others', async () => {
    const output = join(folder(), 'rollouts.jsonl');
    const leaving = worker(redis.url);
    const staying = worker(redis.url);
    const coordinator = start(...collectArgs(output, 6, '--queue', redis.url));
    await until(() => lines(output).length >= 12, 'rows to land');
    leaving.child.kill('SIGTERM');
    const left = await finished(leaving);
    assert.equal(left.code, 0, left.output);
    assert.match(left.output, /stopping: finishing the rollouts in hand/);
    const run = await finished(coordinator);
    const said = [left.output, await stopWorker(staying)];
    assert.equal(run.code, 0, run.output);
    assertEveryKeyOnce(output, ROWS * 6);
    // Nothing it had in hand was left to stall and run again.
    assert.equal(committedBy(said), ROWS * 6, said.join('\n'));
    assert.equal(duplicatesDropped(said[0]!) + duplicatesDropped(said[1]!), 0);
  });

  it('a stalled job that runs twice (its worker frozen past the stall timeout, then thawed) writes one row', async () => {
    const output = join(folder(), 'rollouts.jsonl');
    const frozen = worker(redis.url);
    const other = worker(redis.url);
    const coordinator = start(...collectArgs(output, 6, '--queue', redis.url));
    const client = redis.client();
    const nameOf = (cli: Cli) => /worker (\S+) waiting/.exec(cli.output())?.[1];
    await until(() => lines(output).length >= 12 && nameOf(frozen) !== undefined && nameOf(other) !== undefined, 'rows to land');
    frozen.child.kill('SIGSTOP');
    // What the frozen worker had sent before it stopped (a commit, a completion) reaches Redis first: only then are its jobs in hand known.
    await new Promise((resolve) => setTimeout(resolve, 500));
    // BullMQ stamps each job with the worker that took it last (`pb`): the frozen one's jobs in hand, then one of them taken again by the other.
    const takenBy = async (id: string) => client.hget(`gymnast:rollouts:${id}`, 'pb');
    const active = async () => client.lrange('gymnast:rollouts:active', 0, -1);
    const held: string[] = [];
    for (const id of await active()) if ((await takenBy(id)) === nameOf(frozen)) held.push(id);
    assert.ok(held.length > 0, 'the frozen worker had rollouts in hand');
    // Taken by the other worker, or already done there (a job ends removed): the frozen one cannot have ended it.
    const rerunning = async () => {
      for (const id of held) if ((await takenBy(id)) !== nameOf(frozen)) return true;
      return false;
    };
    // Past the 1 s lock, the stalled checks requeue them: thawed once the other worker runs one of them.
    await untilAsync(rerunning, 'a stalled job to run again on the other worker');
    frozen.child.kill('SIGCONT');
    const run = await finished(coordinator);
    const said = await Promise.all([frozen, other].map(stopWorker));
    client.disconnect();
    assert.equal(run.code, 0, run.output);
    assertEveryKeyOnce(output, ROWS * 6);
    assert.ok(duplicatesDropped(said[0]!) + duplicatesDropped(said[1]!) >= 1, `a job ran twice and one of its runs was dropped:\n${said.join('\n')}`);
    assert.equal(committedBy(said), ROWS * 6, `each key committed once:\n${said.join('\n')}`);
  });

  it('the coordinator killed with -9, then --resume: it continues from the files and what Redis holds, no key lost or written twice', async () => {
    const output = join(folder(), 'rollouts.jsonl');
    const workers = [worker(redis.url), worker(redis.url)];
    const first = start(...collectArgs(output, 6, '--queue', redis.url));
    await until(() => lines(output).length >= 20, 'rows to land');
    first.child.kill('SIGKILL');
    await first.exited;
    const resumed = await finished(start(...collectArgs(output, 6, '--queue', redis.url, '--resume')));
    const said = await Promise.all(workers.map(stopWorker));
    assert.equal(resumed.code, 0, resumed.output);
    assert.match(resumed.output, /resuming: \d+ done before/);
    assertEveryKeyOnce(output, ROWS * 6);
    // The outcomes committed while no coordinator was there were taken from Redis, and the jobs still queued were not enqueued twice: each key ran once.
    assert.equal(committedBy(said), ROWS * 6, said.join('\n'));
  });

  it('Redis restarted mid-run (AOF): the run continues to every key once', async () => {
    const output = join(folder(), 'rollouts.jsonl');
    const workers = [worker(redis.url), worker(redis.url)];
    const coordinator = start(...collectArgs(output, 6, '--queue', redis.url));
    await until(() => lines(output).length >= 12, 'rows to land');
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await redis.restart();
    const run = await finished(coordinator);
    await Promise.all(workers.map(stopWorker));
    assert.equal(run.code, 0, run.output);
    assertEveryKeyOnce(output, ROWS * 6);
  });

  it('Redis gone for good mid-run: one line naming it, whole files, and --resume once it is back writes every key once', async () => {
    const output = join(folder(), 'rollouts.jsonl');
    const workers = [worker(redis.url, '--redis-timeout', '1')];
    const coordinator = start(...collectArgs(output, 6, '--queue', redis.url, '--redis-timeout', '1'));
    await until(() => lines(output).length >= 12, 'rows to land');
    await redis.stop();
    const run = await finished(coordinator);
    const said = await Promise.all(workers.map((cli) => finished(cli)));
    await redis.restart();
    assert.equal(run.code, 1, run.output);
    const errors = run.output.split('\n').filter((line) => line.startsWith('gymnast:'));
    assert.deepEqual(errors.length, 1, run.output);
    assert.match(
      errors[0]!,
      new RegExp(`^gymnast: queue: lost Redis at redis://127\\.0\\.0\\.1:${redis.port}/0 and could not reach it again for 1 s .*--resume`),
    );
    assert.equal(said[0]!.code, 1, said[0]!.output);
    // Every line the run wrote is whole: each parses, no key twice.
    const written = readFileSync(output, 'utf8');
    assert.ok(written.endsWith('\n'));
    const keys = lines(output).map(keyOf);
    assert.equal(new Set(keys).size, keys.length);
    const again = [worker(redis.url)];
    const resumed = await finished(start(...collectArgs(output, 6, '--queue', redis.url, '--resume')));
    await Promise.all(again.map(stopWorker));
    assert.equal(resumed.code, 0, resumed.output);
    assertEveryKeyOnce(output, ROWS * 6);
  });
});

describe('failures through the queue', { skip: redisMissing }, () => {
  let redis: RedisServer;
  before(async () => (redis = await RedisServer.start()));
  after(async () => redis.stop());
  const server = suiteServer();

  it('are typed failure rows in the sidecar as on one machine, and --resume runs them again as their next attempt', async () => {
    const output = join(folder(), 'rollouts.jsonl');
    const policy = ['--policy', 'vllm-completions', '--base-url', server().url, '--tokenizer', qwen3Directory, '--request-attempts', '2'];
    const args = ['collect', '--input', input, '--output', output, '--limit', '8', '--max-tokens', '32', '-c', '8', '--queue', redis.url, ...policy];
    server().faults.clear();
    server().faults.inject({ kind: 'corrupt-token', at: 0, id: 151_999 }, 1_000);
    let workers = [worker(redis.url, ...policy)];
    const first = await finished(start(...args));
    await Promise.all(workers.map(stopWorker));
    assert.equal(first.code, 75, 'every rollout failed, and --resume would retry them');
    assert.equal(lines(output).length, 0);
    const failures = lines(output.replace('.jsonl', '_failures.jsonl'));
    assert.equal(failures.length, 8);
    for (const failure of failures) {
      assert.equal(failure._ng_failure_class, 'policy-error');
      assert.equal(failure._ng_attempt_index, undefined, 'the first attempt');
    }

    server().faults.clear();
    workers = [worker(redis.url, ...policy)];
    const resumed = await finished(start(...args, '--resume'));
    await Promise.all(workers.map(stopWorker));
    assert.equal(resumed.code, 0, resumed.output);
    const rows = lines(output);
    assert.equal(rows.length, 8, 'every rollout ran again and succeeded');
    assert.equal(new Set(rows.map(keyOf)).size, 8);
    for (const row of rows) assert.equal(row._ng_attempt_index, 1, 'as its second attempt');
  });

  it("a worker that cannot run the run's rollouts (another policy) stops the run at once with its reason, and --resume runs them once a right worker is there", async () => {
    const output = join(folder(), 'rollouts.jsonl');
    const wrong = [worker(redis.url, '--policy', 'vllm-completions', '--base-url', server().url, '--tokenizer', qwen3Directory)];
    const first = await finished(start(...collectArgs(output, 1, '--queue', redis.url)));
    const said = await Promise.all(wrong.map(stopWorker));
    assert.equal(first.code, 1, first.output);
    const errors = first.output.split('\n').filter((line) => line.startsWith('gymnast:'));
    assert.equal(errors.length, 1, first.output);
    assert.match(
      errors[0]!,
      /^gymnast: queue: rollout \d+\.\d+\.0 could not run: worker \S+: run [\da-f]{16} samples with policy "embedded", this worker's is "[^"]+": start the worker with the coordinator's --policy and --model$/,
    );
    assert.match(said[0]!, /samples with policy "embedded"/);
    assert.equal(lines(output).length, 0);
    const right = [worker(redis.url)];
    const resumed = await finished(start(...collectArgs(output, 1, '--queue', redis.url, '--resume')));
    await Promise.all(right.map(stopWorker));
    assert.equal(resumed.code, 0, resumed.output);
    assertEveryKeyOnce(output, ROWS);
  });
});

describe('a Redis that cannot be reached', { skip: redisMissing }, () => {
  it('is one clear line naming the URL, its password masked, before anything is written', async () => {
    const port = await freePort();
    const url = `redis://gym:s3cret-pw@127.0.0.1:${port}/0`;
    const output = join(folder(), 'rollouts.jsonl');
    for (const args of [collectArgs(output, 1, '--queue', url), ['worker', '--queue', url]]) {
      const { code, output: said } = await finished(start(...args));
      assert.equal(code, 1, said);
      const errors = said.split('\n').filter((line) => line.startsWith('gymnast:'));
      assert.equal(errors.length, 1, said);
      assert.match(
        errors[0]!,
        new RegExp(
          `^gymnast: queue: cannot reach Redis at redis://\\*\\*\\*@127\\.0\\.0\\.1:${port}/0 \\(.*ECONNREFUSED.*\\): start one \\(apt-get install redis-server`,
        ),
      );
      assert.doesNotMatch(said, /s3cret/);
    }
    assert.equal(existsSync(output), false, 'nothing written');
  });
});

describe('credentials in the --queue URL', { skip: redisMissing }, () => {
  let redis: RedisServer;
  before(async () => (redis = await RedisServer.start({ password: 'queue-pass-123' })));
  after(async () => redis.stop());

  it('are used, and never printed or stored in the output folder', async () => {
    const dir = folder();
    const output = join(dir, 'rollouts.jsonl');
    const workers = [worker(redis.url)];
    const run = await finished(start(...collectArgs(output, 1, '--queue', redis.url)));
    const said = await Promise.all(workers.map(stopWorker));
    assert.equal(run.code, 0, run.output);
    assertEveryKeyOnce(output, ROWS);
    assert.match(said[0]!, /waiting for rollouts on redis:\/\/\*\*\*@127\.0\.0\.1/);
    for (const text of [run.output, ...said]) assert.doesNotMatch(text, /queue-pass-123/);
    for (const name of readdirSync(dir)) assert.doesNotMatch(readFileSync(join(dir, name), 'utf8'), /queue-pass-123/, name);
  });
});
