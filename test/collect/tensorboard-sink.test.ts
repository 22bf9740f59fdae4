import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { RolloutOutcome } from '../../src/collect/sink.js';
import { TensorBoardSink } from '../../src/collect/tensorboard-sink.js';
import type { FailureRow, ResultRow } from '../../src/core/result-row.js';
import { EventFileWriter } from '../../src/tensorboard/event-file-writer.js';
import { readEventFile } from '../support/tfevents-reader.js';

const keys = (task: number) => ({ _ng_task_index: task, _ng_rollout_index: 0, agent_ref: { name: 'arith' }, responses_create_params: {} });
const result = (task: number, reward: number, outputTokens: number, turns = 1): RolloutOutcome => ({
  kind: 'result',
  row: { ...keys(task), schema_version: 3, duration_ms: 1, reward, num_turns: turns, response: { usage: { output_tokens: outputTokens } } } as ResultRow,
});
const failure = (task: number): RolloutOutcome => ({
  kind: 'failure',
  row: { ...keys(task), schema_version: 3, duration_ms: 1, _ng_failure_class: 'policy-error' } as FailureRow,
});

describe("collect's TensorBoard sink", () => {
  it('counts from the outcomes: failures apart, prompts too long not scored, generated tokens by wall time', async () => {
    let clock = 1_000_000;
    const writer = await EventFileWriter.open(mkdtempSync(join(tmpdir(), 'gymnast-tb-sink-')), { now: () => clock });
    const sink = new TensorBoardSink(writer, () => clock);
    await sink.start({ plannedRollouts: 10, resumed: true, ended: 6 });
    const outcomes = [result(6, 1, 30), failure(7), result(8, 0, 0, 0), result(9, 0.5, 50)];
    for (const outcome of outcomes) {
      clock += 500;
      await sink.write(outcome);
    }
    await sink.finish();
    await sink.close(new Map([['aggregate/arith/pass@1/accuracy', 75]]));

    const events = readEventFile(writer.path).events.slice(1);
    assert.deepEqual(
      events.map((event) => event.step),
      [7, 8, 9, 10, 10],
      'one point per rollout (4 left of 10), then the aggregate at the last step',
    );
    assert.deepEqual(
      events[3]!.scalars,
      new Map([
        ['collect/rollouts_done', 10],
        ['collect/completion_rate', 1],
        ['collect/failures', 1],
        ['collect/tokens_per_second', 40],
        ['collect/mean_reward', 0.75],
      ]),
      '80 tokens in 2 s; the mean of the 2 scored rewards, not of the prompt too long',
    );
    assert.equal(events[1]!.scalars.get('collect/failures'), 1);
    assert.deepEqual(events[4]!.scalars, new Map([['aggregate/arith/pass@1/accuracy', 75]]));
  });

  it('has no mean reward before a rollout is scored, and a point at the end of a run stopped early', async () => {
    const writer = await EventFileWriter.open(mkdtempSync(join(tmpdir(), 'gymnast-tb-sink-')));
    const sink = new TensorBoardSink(writer);
    await sink.start({ plannedRollouts: 1000, resumed: false });
    await sink.write(failure(0));
    await sink.write(failure(1));
    await sink.write(failure(2));
    await sink.finish();
    await sink.close();
    const [, last, ...rest] = readEventFile(writer.path).events;
    assert.deepEqual(rest, [], 'every 10 rollouts, and once at the end');
    assert.equal(last!.step, 3);
    assert.equal(last!.scalars.has('collect/mean_reward'), false);
    assert.equal(last!.scalars.get('collect/failures'), 3);
  });
});
