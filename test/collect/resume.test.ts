import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { collect, type CollectOptions } from '../../src/collect/collect-run.js';
import { repairJsonl, ResumeState } from '../../src/collect/resume-state.js';
import { SamplingParams, ServerError } from '../../src/core/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';

const tokenizer = new CharTokenizer();
const row = (a: number, b: number) =>
  JSON.stringify({
    responses_create_params: { input: [{ role: 'user', content: `what is ${a}+${b}?` }] },
    agent_ref: { name: 'arithmetic' },
    problem: `${a}+${b}`,
    answer: a + b,
  });
const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text) as Record<string, unknown>);

/** A policy that fails every call while `failing` is true, and answers right otherwise. */
function flakyPolicy(state: { failing: boolean }) {
  return new ScriptedPolicy({
    tokenizer,
    script: (request) => {
      if (state.failing) return { error: new Error('server down') };
      const [a, b] = /(\d+)\+(\d+)/.exec(request.messages[0]!.content)!.slice(1).map(Number);
      return { text: String(a! + b!) };
    },
  });
}

function options(input: string, output: string, policy: ScriptedPolicy, extra: Partial<CollectOptions> = {}): CollectOptions {
  return {
    input,
    output,
    concurrency: 2,
    policy,
    renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
    maxSeqLen: 512,
    maxTurns: 3,
    sampling: SamplingParams.parse({ max_tokens: 8 }),
    numRepeats: 2,
    ...extra,
  };
}

function dataset(count: number) {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-resume-'));
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, `${Array.from({ length: count }, (_, i) => row(i + 1, i + 2)).join('\n')}\n`);
  return { input, output: join(dir, 'out.jsonl') };
}

const bin = fileURLToPath(new URL('../../bin/gymnast.js', import.meta.url));

/** The lockstep preload in one plain file: loaded through tsx, it would cost each killed run a third of a second more. */
async function bundleLockstep(): Promise<string> {
  const outfile = join(mkdtempSync(join(tmpdir(), 'gymnast-lockstep-')), 'stderr-lockstep.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../support/stderr-lockstep.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

/**
 * Runs `gymnast ARGS…` in lockstep with its stderr (see stderr-lockstep.ts) and kills it (kill -9) at the
 * first line `at` picks, while the run waits there. Refuses a run that ended before such a line: a kill
 * that interrupted nothing would test nothing.
 */
async function killedAt(lockstep: string, args: readonly string[], at: (line: string) => boolean): Promise<void> {
  const child = spawn(process.execPath, ['--import', lockstep, bin, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  const exited = once(child, 'exit');
  // The run may end (or be killed) with an answer unsent: the pipe is closed then.
  child.stdin.on('error', () => undefined);
  const seen: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    seen.push(line);
    if (at(line)) child.kill('SIGKILL');
    else child.stdin.write('\n');
  });
  const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
  assert.equal(signal, 'SIGKILL', `the kill interrupts the run: it exited ${code} before a line chose it, after:\n${seen.join('\n')}`);
}

/** The keys of every rollout ended so far (a success or a failure), from complete lines: a kill may cut the last. */
function endedKeys(output: string): Set<string> {
  const complete = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').replace(/[^\n]*$/, '') : '');
  const lines = [output, output.replace('.jsonl', '_failures.jsonl')].flatMap((path) => complete(path).split('\n').filter(Boolean));
  return new Set(lines.map((line) => JSON.parse(line) as Record<string, unknown>).map((row) => `${row._ng_task_index}:${row._ng_rollout_index}`));
}

describe('resume', () => {
  it('cuts a last line a crash left without its newline, keeping every complete row', () => {
    const { output } = dataset(1);
    writeFileSync(output, '{"_ng_task_index":0,"_ng_rollout_index":0}\n{"_ng_task_index":0,"_ng_rollo');
    const kept: unknown[] = [];
    const { repairedBytes } = repairJsonl(output, (row) => kept.push(row));
    assert.equal(kept.length, 1);
    assert.equal(repairedBytes, 30);
    assert.equal(readFileSync(output, 'utf8'), '{"_ng_task_index":0,"_ng_rollout_index":0}\n');
  });

  it('refuses a bad line with complete rows after it, cutting nothing (corruption is not a crash)', () => {
    const { output } = dataset(1);
    const text = '{"_ng_task_index":0,"_ng_rollout_index":0}\n{"_ng_task_ind\n{"_ng_task_index":0,"_ng_rollout_index":1}\n';
    writeFileSync(output, text);
    assert.throws(() => repairJsonl(output, () => {}), /out\.jsonl:2 is not valid JSON, but complete rows follow it/);
    assert.equal(readFileSync(output, 'utf8'), text);
  });

  it('keeps rollouts of huge caller-stamped task indices apart', () => {
    const state = new ResumeState();
    state.addSuccess({ _ng_task_index: 5e9, _ng_rollout_index: 0 });
    const row = (rollout: number) => ({ _ng_task_index: 5e9, _ng_rollout_index: rollout, responses_create_params: {}, agent_ref: { name: 'x' } });
    assert.deepEqual(state.decide(row(0), 3), { kind: 'done' });
    assert.deepEqual(state.decide(row(1), 3), { kind: 'run', attempt: 0 });
  });

  it('skips done rollouts, retries failed ones with their attempt index, and keeps failures past max attempts', async () => {
    const { input, output } = dataset(3);
    const state = { failing: true };
    await collect(options(input, output, flakyPolicy(state)));
    assert.equal(rows(output).length, 0);
    await collect(options(input, output, flakyPolicy(state), { resume: true }));
    state.failing = false;
    const policy = flakyPolicy(state);
    const summary = await collect(options(input, output, policy, { resume: true }));
    const done = rows(output);
    assert.equal(done.length, 6);
    assert.ok(done.every((result) => result._ng_attempt_index === 2));
    assert.equal(rows(summary.paths.failures).length, 12);
    assert.equal(policy.requests.length, 6);

    const again = flakyPolicy(state);
    await collect(options(input, output, again, { resume: true }));
    assert.equal(again.requests.length, 0, 'a finished run has nothing left to do');
  });

  it('records a request the server rejected as malformed (4xx) as terminal, and never retries it', async () => {
    const { input, output } = dataset(1);
    const rejecting = new ScriptedPolicy({ tokenizer, script: () => ({ error: new ServerError('http://127.0.0.1:1', 400, 'unknown field "top_q"') }) });
    const summary = await collect(options(input, output, rejecting));
    assert.ok(rows(summary.paths.failures).every((row) => row._ng_failure_terminal === true));
    const state = { failing: false };
    const policy = flakyPolicy(state);
    await collect(options(input, output, policy, { resume: true }));
    assert.equal(policy.requests.length, 0);
  });

  it('does not count a rollout aborted by the second Ctrl-C as an attempt: with --max-attempts 1, a resume runs it again as attempt 0', async () => {
    const { input, output } = dataset(2);
    const interrupt = new AbortController();
    // Every request waits until the run is aborted, which happens once all four rollouts are in flight.
    let inFlight = 0;
    const hanging = new ScriptedPolicy({
      tokenizer,
      script: () => {
        if (++inFlight === 4) setImmediate(() => interrupt.abort());
        return { text: 'unused', delay_ms: 600_000 };
      },
    });
    const interrupted = await collect(
      options(input, output, hanging, { concurrency: 4, maxAttempts: 1, stopAdmitting: interrupt.signal, signal: interrupt.signal }),
    );
    const aborted = rows(interrupted.paths.failures);
    assert.deepEqual(
      aborted.map((failure) => failure._ng_failure_class),
      ['aborted', 'aborted', 'aborted', 'aborted'],
    );
    assert.deepEqual([interrupted.retryable, interrupted.givenUp], [4, 0], 'the run says --resume would run all four again');

    const policy = flakyPolicy({ failing: false });
    const resumed = await collect(options(input, output, policy, { resume: true, maxAttempts: 1 }));
    assert.equal(policy.requests.length, 4, 'each aborted rollout ran again');
    assert.equal(resumed.rollouts, 4);
    assert.deepEqual(
      rows(output).map((result) => result._ng_attempt_index),
      [undefined, undefined, undefined, undefined],
      'each as its first attempt (stamped only past it)',
    );
  });

  it('counts a rollout that failed and later succeeded as no failure in the metrics', async () => {
    const { input, output } = dataset(2);
    const state = { failing: true };
    await collect(options(input, output, flakyPolicy(state)));
    state.failing = false;
    const summary = await collect(options(input, output, flakyPolicy(state), { resume: true }));
    assert.equal(summary.aggregate[0]!.rollout_metrics.num_failures, 0);
    assert.equal(summary.aggregate[0]!.rollout_metrics.num_samples, 4);
  });

  it('gives up on a rollout after max attempts, leaving its failures recorded', async () => {
    const { input, output } = dataset(1);
    const state = { failing: true };
    await collect(options(input, output, flakyPolicy(state), { maxAttempts: 1 }));
    state.failing = false;
    const policy = flakyPolicy(state);
    await collect(options(input, output, policy, { resume: true, maxAttempts: 1 }));
    assert.equal(policy.requests.length, 0);
    assert.equal(rows(output).length, 0);
  });

  it('counts the earlier rollouts in its progress: their successes with their rewards, and the failures it gives up on', async () => {
    const { input, output } = dataset(3);
    // 1+2 fails (given up on with one attempt), 2+3 is answered right (reward 1), 3+4 wrong (reward 0).
    const policy = () =>
      new ScriptedPolicy({
        tokenizer,
        script: (request) => {
          const question = request.messages[0]!.content;
          if (question.includes('1+2')) return { error: new Error('server down') };
          return { text: question.includes('3+4') ? '0' : '5' };
        },
      });
    await collect(options(input, output, policy(), { maxAttempts: 1 }));
    const lines = readFileSync(output, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 4);
    writeFileSync(output, `${lines.slice(1).join('\n')}\n`);
    const seen: unknown[] = [];
    const summary = await collect(options(input, output, policy(), { resume: true, maxAttempts: 1, onProgress: (progress) => seen.push(progress) }));
    assert.deepEqual(
      seen,
      [{ done: 6, total: 6, failures: 2, promptTooLong: 0, rewardSum: 2 }],
      'the one rollout run again ends the run: 4 successes (mean reward 0.5) and 2 failures',
    );
    assert.deepEqual([summary.rollouts, summary.failures], [4, 0]);
  });

  it('refuses to resume from materialized inputs a crash cut short, instead of silently running fewer rollouts', async () => {
    const { input, output } = dataset(3);
    const state = { failing: false };
    const summary = await collect(options(input, output, flakyPolicy(state)));
    const lines = readFileSync(summary.paths.materialized, 'utf8').split('\n');
    writeFileSync(summary.paths.materialized, `${lines.slice(0, 2).join('\n')}\n`);
    await assert.rejects(collect(options(input, output, flakyPolicy(state), { resume: true })), /is not the plan the run recorded/);
  });

  it('refuses to resume where rows are but their plan is gone, instead of erasing them with a fresh start', async () => {
    const { input, output } = dataset(3);
    const state = { failing: false };
    const summary = await collect(options(input, output, flakyPolicy(state)));
    rmSync(summary.paths.materialized);
    const before = readFileSync(output, 'utf8');
    assert.equal(before.split('\n').filter(Boolean).length, 6, '3 rows, 2 rollouts each');
    await assert.rejects(collect(options(input, output, flakyPolicy(state), { resume: true })), {
      kind: 'output-exists',
      message:
        /^cannot resume .*: its plan \S+out_materialized_inputs\.jsonl is missing, and a fresh start would erase the 6 rows in \S+out\.jsonl\. Move them away, or run with --overwrite instead of --resume/,
    });
    assert.equal(readFileSync(output, 'utf8'), before);
  });

  it('takes up a run whose _run.json is gone as NeMo Gym resumes one: from its plan and rows, saying the identity could not be checked', async () => {
    const { input, output } = dataset(3);
    const state = { failing: true };
    const first = await collect(options(input, output, flakyPolicy(state)));
    rmSync(first.paths.run);
    state.failing = false;
    const notices: string[] = [];
    const summary = await collect(options(input, output, flakyPolicy(state), { resume: true, numRepeats: 5, onNotice: (notice) => notices.push(notice) }));
    assert.ok(
      notices.some((notice) => /its run identity could not be checked/.test(notice)),
      notices.join('\n'),
    );
    // The plan as it stands (2 repeats), not --num-repeats 5: the input is not read.
    assert.deepEqual([summary.planned, summary.rollouts, summary.retryable], [6, 6, 0]);
    assert.equal(rows(output).length, 6);
  });

  it('refuses to resume when the plan or the sampling changed, saying what changed', async () => {
    const { input, output } = dataset(2);
    const state = { failing: false };
    await collect(options(input, output, flakyPolicy(state)));
    await assert.rejects(collect(options(input, output, flakyPolicy(state), { resume: true, numRepeats: 3 })), /planned rollouts changed \(4 then, 6 now/);
    await assert.rejects(
      collect(options(input, output, flakyPolicy(state), { resume: true, sampling: SamplingParams.parse({ max_tokens: 8, temperature: 0.5 }) })),
      /sampling was .*"temperature":1.*now .*"temperature":0.5/,
    );
    appendFileSync(input, `${row(9, 9)}\n`);
    await assert.rejects(collect(options(input, output, flakyPolicy(state), { resume: true })), /planned rollouts changed/);
  });

  it('resumes a run an older gymnast recorded: a setting it did not record is read as what it ran with (on_max_tokens: end), and the agents an agent server ran (recorded for readers) do not block it', async () => {
    const { input, output } = dataset(2);
    const state = { failing: true };
    const first = await collect(options(input, output, flakyPolicy(state), { remoteAgents: [] }));
    const older = JSON.parse(readFileSync(first.paths.run, 'utf8')) as { config: Record<string, unknown> };
    delete older.config.on_max_tokens;
    writeFileSync(first.paths.run, JSON.stringify(older));
    await assert.rejects(
      collect(options(input, output, flakyPolicy(state), { resume: true })),
      /on_max_tokens was "end" \(a run of an older gymnast, which did not record it\), now "continue"/,
    );
    state.failing = false;
    const resumed = await collect(options(input, output, flakyPolicy(state), { resume: true, onMaxTokens: 'end', remoteAgents: ['arithmetic'] }));
    assert.equal(resumed.rollouts, 4);
  });

  it('after kill -9 after the first row, in the middle and in the aggregate pass, resuming ends with exactly one success per rollout: none lost, none duplicated', async () => {
    const { input, output } = dataset(32);
    const planned = 32 * 8;
    const args = ['collect', '--input', input, '--output', output, '--num-repeats', '8', '--concurrency', '8', '--seed', '3'];
    const aggregate = output.replace('.jsonl', '_aggregate_metrics.json');
    const lockstep = await bundleLockstep();
    const progress = (line: string) => Number(new RegExp(`^\\[collect\\] (\\d+)/${planned} rollouts`).exec(line)?.[1] ?? Number.NaN);

    await killedAt(lockstep, args, (line) => progress(line) >= 1);
    const afterFirst = endedKeys(output);
    assert.ok(afterFirst.size >= 1 && afterFirst.size < planned, `killed after the first row, before the last: ${afterFirst.size} of ${planned} ended`);

    await killedAt(lockstep, [...args, '--resume'], (line) => progress(line) >= planned / 2);
    const inMiddle = endedKeys(output);
    assert.ok(inMiddle.size >= planned / 2 && inMiddle.size < planned, `killed in the middle: ${inMiddle.size} of ${planned} ended`);

    await killedAt(lockstep, [...args, '--resume'], (line) => line.includes('reading the rollouts back'));
    assert.equal(endedKeys(output).size, planned, 'killed after every rollout ended');
    assert.equal(existsSync(aggregate), false, 'killed before the aggregate was written');

    const finish = spawn(process.execPath, [bin, ...args, '--resume'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    finish.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(finish, 'exit')) as [number];
    assert.equal(code, 0, stderr);
    assert.match(stderr, new RegExp(`resuming: ${planned} done before`), 'nothing was run twice');
    assert.ok(existsSync(aggregate), 'the resume wrote the aggregate');

    const successes = rows(output).map((result) => `${result._ng_task_index}:${result._ng_rollout_index}`);
    const failures = new Set(rows(output.replace('.jsonl', '_failures.jsonl')).map((result) => `${result._ng_task_index}:${result._ng_rollout_index}`));
    assert.equal(new Set(successes).size, successes.length, 'no rollout is written twice');
    for (let task = 0; task < 32; task++) {
      for (let rollout = 0; rollout < 8; rollout++) {
        const key = `${task}:${rollout}`;
        assert.ok(successes.includes(key) || failures.has(key), `${key} ended as a success or a recorded failure`);
      }
    }
  });
});
