import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { gymnast } from '../support/run-cli.js';
import { type DecodedEvent, eventFileIn, readEventFile } from '../support/tfevents-reader.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const arithmetic = join(root, 'examples/arithmetic.jsonl');
const folder = () => mkdtempSync(join(tmpdir(), 'gymnast-tensorboard-'));
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const progressOf = (events: DecodedEvent[]) => events.filter((event) => event.scalars.has('collect/rollouts_done'));

describe('gymnast collect --tensorboard', () => {
  it("writes the progress every 1% of the run and the aggregate file's metrics at the end, in a file TensorBoard's format reads", async () => {
    const dir = folder();
    const output = join(dir, 'out.jsonl');
    const tensorboard = join(dir, 'runs', 'tb');
    const run = await gymnast('collect', '-i', arithmetic, '-o', output, '--num-repeats', '8', '--seed', '5', '--tensorboard', tensorboard);
    assert.equal(run.code, 0, run.stderr);

    const { events, truncated } = readEventFile(eventFileIn(tensorboard));
    assert.equal(truncated, false);
    assert.equal(events[0]!.fileVersion, 'brain.Event:2');
    const wallTimes = events.map((event) => event.wallTime);
    assert.deepEqual(
      wallTimes,
      [...wallTimes].sort((a, b) => a - b),
      'in the order they happened',
    );

    // 128 rollouts: a point every 2 of them, the last at 128.
    const progress = progressOf(events);
    assert.deepEqual(
      progress.map((event) => event.step),
      Array.from({ length: 64 }, (_, i) => 2 * (i + 1)),
    );
    for (const { step, scalars } of progress) {
      assert.equal(scalars.get('collect/rollouts_done'), step);
      assert.equal(scalars.get('collect/completion_rate'), Math.fround(step / 128));
      assert.equal(scalars.get('collect/failures'), 0);
      const tokensPerSecond = scalars.get('collect/tokens_per_second')!;
      assert.ok(tokensPerSecond > 0 && Number.isFinite(tokensPerSecond), `step ${step}: ${tokensPerSecond} tokens/s`);
    }
    const rewards = lines(output).map((line) => (JSON.parse(line) as { reward: number }).reward);
    const meanReward = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
    assert.equal(progress.at(-1)!.scalars.get('collect/mean_reward'), Math.fround(meanReward), "the last mean reward is the output's");

    const final = events.at(-1)!;
    assert.equal(final.step, 128, 'the aggregate at the last step');
    const [aggregate] = JSON.parse(readFileSync(join(dir, 'out_aggregate_metrics.json'), 'utf8')) as {
      key_metrics: Record<string, number>;
      rollout_metrics: Record<string, number>;
    }[];
    const expected = new Map(
      Object.entries({ ...aggregate!.key_metrics, ...aggregate!.rollout_metrics }).map(([name, value]) => [`aggregate/arithmetic/${name}`, Math.fround(value)]),
    );
    assert.deepEqual(final.scalars, expected);
    assert.equal(final.scalars.get('aggregate/arithmetic/pass@8/accuracy'), Math.fround(aggregate!.key_metrics['pass@8/accuracy']!));
  });

  it('after --resume, a second event file goes on from the rollouts done before, as TensorBoard shows one run', async () => {
    const dir = folder();
    const output = join(dir, 'out.jsonl');
    const tensorboard = join(dir, 'tb');
    const args = ['collect', '-i', arithmetic, '-o', output, '--num-repeats', '4', '--seed', '5', '--tensorboard', tensorboard];
    assert.equal((await gymnast(...args)).code, 0);
    writeFileSync(output, `${lines(output).slice(0, 40).join('\n')}\n`);
    const resumed = await gymnast(...args, '--resume');
    assert.equal(resumed.code, 0, resumed.stderr);

    const files = readdirSync(tensorboard).sort();
    assert.equal(files.length, 2);
    const steps = files.map((name) => progressOf(readEventFile(join(tensorboard, name)).events).map((event) => event.step));
    const second = steps.find((run) => run[0] !== 1)!;
    assert.deepEqual(
      second,
      Array.from({ length: 24 }, (_, i) => 41 + i),
    );
  });

  it('a run killed mid-way leaves every batch written before whole', async () => {
    const dir = folder();
    const tensorboard = join(dir, 'tb');
    const child = spawn(
      process.execPath,
      [join(root, 'bin/gymnast.js'), 'collect', '-i', arithmetic, '-o', join(dir, 'out.jsonl'), '--num-repeats', '64', '-c', '2', '--tensorboard', tensorboard],
      { stdio: 'ignore' },
    );
    const exited = once(child, 'exit');
    let written = 0;
    for (let waited = 0; written < 3 && waited < 60_000; waited += 50) {
      await sleep(50);
      written = existsSync(tensorboard) && readdirSync(tensorboard).length > 0 ? progressOf(readEventFile(eventFileIn(tensorboard)).events).length : 0;
    }
    child.kill('SIGKILL');
    const [code, signal] = await exited;
    assert.equal(signal, 'SIGKILL', `still running when killed (exit ${code})`);

    const { events, truncated } = readEventFile(eventFileIn(tensorboard));
    assert.equal(truncated, false, 'one write per batch: a kill does not tear one');
    const steps = progressOf(events).map((event) => event.step);
    assert.ok(steps.length >= 3, `${steps.length} batches kept`);
    assert.deepEqual(
      steps,
      Array.from({ length: steps.length }, (_, i) => 11 * (i + 1)),
      '1,024 rollouts: a point every 11',
    );
  });

  for (const [name, value] of [
    ['an empty path', ''],
    ['a file', 'FILE'],
  ] as const) {
    it(`refuses ${name} naming the flag, before any rollout, with no stack trace`, async () => {
      const dir = folder();
      const file = join(dir, 'a-file');
      writeFileSync(file, 'taken');
      const output = join(dir, 'out.jsonl');
      const run = await gymnast('collect', '-i', arithmetic, '-o', output, '--tensorboard', value === 'FILE' ? file : value);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /--tensorboard/);
      assert.doesNotMatch(run.stderr, /^\s+at /m);
      assert.equal(existsSync(output), false, 'no rollout ran');
    });
  }

  it('is documented in collect --help and train --help', async () => {
    for (const command of ['collect', 'train']) {
      const { code, stdout } = await gymnast(command, '--help');
      assert.equal(code, 0);
      assert.match(stdout, /--tensorboard <dir>/, command);
      assert.match(stdout, /tensorboard --logdir/, command);
    }
  });
});

describe('gymnast train --tensorboard', () => {
  it("writes each step's metrics at the step, the values of its metrics.jsonl line", async () => {
    const dir = folder();
    const output = join(dir, 'run');
    const tensorboard = join(dir, 'tb');
    const run = await gymnast(
      'train',
      '--output',
      output,
      '--steps',
      '2',
      '--tasks-per-step',
      '2',
      '--group-size',
      '2',
      '--held-out',
      '4',
      '--tensorboard',
      tensorboard,
    );
    assert.equal(run.code, 0, run.stderr);

    const { events, truncated } = readEventFile(eventFileIn(tensorboard));
    assert.equal(truncated, false);
    const steps = lines(join(output, 'metrics.jsonl')).map((line) => JSON.parse(line) as Record<string, unknown>);
    const summaries = events.filter((event) => event.what === 'summary');
    assert.deepEqual(
      summaries.map((event) => event.step),
      [1, 2],
    );
    for (const [i, event] of summaries.entries()) {
      // Every number of the line is a scalar; the lists and maps (the versions trained on, turns by staleness) are not.
      const { step: _, ...metrics } = steps[i]!;
      const numbers = Object.entries(metrics).filter((entry): entry is [string, number] => typeof entry[1] === 'number');
      assert.deepEqual(event.scalars, new Map(numbers.map(([name, value]) => [`train/${name}`, Math.fround(value)])));
    }
    for (const name of ['reward', 'pass_at_1', 'pass_at_k', 'kl', 'clip_fraction', 'entropy', 'tokens_per_second'])
      assert.ok(
        summaries.every((event) => event.scalars.has(`train/${name}`)),
        name,
      );
    assert.equal(summaries[1]!.scalars.has('train/held_out_accuracy'), true, 'measured after the last step');
    assert.equal(summaries[0]!.scalars.has('train/held_out_accuracy'), false, 'not measured after the first');
  });
});
