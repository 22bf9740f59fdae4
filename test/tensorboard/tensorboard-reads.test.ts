import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { EventFileWriter } from '../../src/tensorboard/event-file-writer.js';
import { gymnast } from '../support/run-cli.js';
import { eventFileIn, readEventFile } from '../support/tfevents-reader.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const folder = () => mkdtempSync(join(tmpdir(), 'gymnast-tensorboard-reads-'));

/**
 * A Python that has TensorBoard (`GYMNAST_TENSORBOARD_PYTHON`, else `python3`): no registry this
 * project reaches ships it (Debian has no package), so it is used where a machine has it, and the
 * spec says so where not.
 */
const python = process.env.GYMNAST_TENSORBOARD_PYTHON ?? 'python3';
const hasTensorBoard = spawnSync(python, ['-c', 'import tensorboard'], { stdio: 'ignore' }).status === 0;
const skip = !hasTensorBoard && `needs TensorBoard in ${python} (pip install tensorboard, or GYMNAST_TENSORBOARD_PYTHON=…)`;

// TensorBoard's default loader on Linux is its Rust data server (`--load_fast`), shipped in a wheel of its own.
const hasDataServer =
  hasTensorBoard &&
  spawnSync(python, ['-c', 'import sys, tensorboard_data_server as s; sys.exit(s.server_binary() is None)'], { stdio: 'ignore' }).status === 0;

/**
 * What TensorBoard's scalars dashboard reads from a folder, through its own loader (the plugin event
 * accumulator of `--load_fast=false`, which turns simple values into the scalars plugin's tensors):
 * each tag's (step, value) points, and the tags it gives the scalars plugin.
 */
const READ_WITH_TENSORBOARD = `
import json, sys
from tensorboard.backend.event_processing import plugin_event_accumulator as pea
from tensorboard.util import tensor_util
accumulator = pea.EventAccumulator(sys.argv[1], size_guidance={pea.TENSORS: 0})
accumulator.Reload()
scalars = sorted(accumulator.PluginTagToContent('scalars'))
points = {tag: [[event.step, float(tensor_util.make_ndarray(event.tensor_proto))] for event in accumulator.Tensors(tag)] for tag in scalars}
print(json.dumps({'scalars': scalars, 'points': points}))
`;

async function readWithTensorBoard(dir: string): Promise<{ scalars: string[]; points: Record<string, [number, number][]> }> {
  const { stdout } = await promisify(execFile)(python, ['-c', READ_WITH_TENSORBOARD, dir], { cwd: root });
  return JSON.parse(stdout);
}

/** The same points as the protobufjs reader finds them, by tag. */
function pointsOf(path: string): Record<string, [number, number][]> {
  const points: Record<string, [number, number][]> = {};
  for (const event of readEventFile(path).events) for (const [tag, value] of event.scalars) (points[tag] ??= []).push([event.step, value]);
  return points;
}

describe('TensorBoard itself reads the event files', { skip }, () => {
  it("shows a collect run's every scalar on the scalars dashboard, at the steps and values the protobuf reader finds", async () => {
    const dir = folder();
    const tensorboard = join(dir, 'tb');
    const run = await gymnast(
      'collect',
      '-i',
      join(root, 'examples/arithmetic.jsonl'),
      '-o',
      join(dir, 'out.jsonl'),
      '--num-repeats',
      '2',
      '--tensorboard',
      tensorboard,
    );
    assert.equal(run.code, 0, run.stderr);

    const read = await readWithTensorBoard(tensorboard);
    const expected = pointsOf(eventFileIn(tensorboard));
    assert.deepEqual(read.scalars, Object.keys(expected).sort());
    assert.ok(read.scalars.includes('collect/mean_reward') && read.scalars.includes('aggregate/arithmetic/pass@2/accuracy'), read.scalars.join(', '));
    assert.deepEqual(read.points, expected);
  });

  it('serves them over HTTP from `tensorboard --logdir` with its Rust data server, as the dashboard asks for them', {
    skip: !hasDataServer && 'needs tensorboard-data-server with its binary',
  }, async () => {
    const dir = folder();
    const writer = await EventFileWriter.open(dir);
    for (let step = 1; step <= 5; step++)
      writer.write(
        step,
        new Map([
          ['collect/mean_reward', step / 8],
          ['collect/failures', step % 2],
        ]),
      );
    writer.write(5, new Map([['aggregate/arith/pass@8/accuracy', 93.75]]));
    await writer.close();
    const expected = pointsOf(writer.path);

    const server = spawn(
      python,
      ['-m', 'tensorboard.main', '--logdir', dir, '--load_fast=true', '--host', '127.0.0.1', '--port', '0', '--reload_interval', '1'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    try {
      let said = '';
      server.stderr!.on('data', (chunk: Buffer) => void (said += chunk.toString()));
      const url = await polled(60_000, async () => said.match(/TensorBoard \S+ at (http:\/\/127\.0\.0\.1:\d+)\//)?.[1]);
      const tags = await polled(60_000, async () => {
        const listed = (await (await fetch(`${url}/data/plugin/scalars/tags`)).json()) as Record<string, Record<string, unknown>>;
        return Object.keys(listed['.'] ?? {}).length === 3 ? Object.keys(listed['.']!).sort() : undefined;
      });
      assert.deepEqual(tags, Object.keys(expected).sort());
      for (const tag of tags) {
        const points = (await (await fetch(`${url}/data/plugin/scalars/scalars?run=.&tag=${encodeURIComponent(tag)}`)).json()) as [number, number, number][];
        assert.deepEqual(
          points.map(([, step, value]) => [step, value]),
          expected[tag],
          tag,
        );
      }
    } finally {
      server.kill();
      await once(server, 'exit');
    }
  });

  it('reads a file whose last record a crash cut short up to that record', async () => {
    const dir = folder();
    const writer = await EventFileWriter.open(dir);
    writer.write(1, new Map([['x', 0.5]]));
    writer.write(2, new Map([['x', 0.25]]));
    await writer.close();
    const bytes = readFileSync(writer.path);
    writeFileSync(writer.path, bytes.subarray(0, bytes.length - 7));
    const read = await readWithTensorBoard(dir);
    assert.deepEqual(read.points, { x: [[1, 0.5]] });
  });
});

/** Polls `probe` until it gives a value, at most `ms`. */
async function polled<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing after ${ms} ms`);
    await sleep(200);
  }
}
