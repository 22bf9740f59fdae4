import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { JsonlRolloutSink } from '../../src/collect/jsonl-rollout-sink.js';
import type { RolloutOutcome } from '../../src/collect/sink.js';

const result = (index: number, text = 'ok'): RolloutOutcome =>
  ({ kind: 'result', row: { _ng_task_index: 0, _ng_rollout_index: index, text } }) as unknown as RolloutOutcome;
const failure = (index: number): RolloutOutcome =>
  ({ kind: 'failure', row: { _ng_task_index: 0, _ng_rollout_index: index, _ng_failure_class: 'aborted' } }) as unknown as RolloutOutcome;
const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);

async function startedSink(): Promise<{ sink: JsonlRolloutSink; output: string; failures: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-batches-'));
  const paths = { output: join(dir, 'out.jsonl'), failures: join(dir, 'out_failures.jsonl') };
  const sink = new JsonlRolloutSink(paths);
  await sink.start({ plannedRollouts: 8, resumed: false });
  return { sink, ...paths };
}

/**
 * The rows of the rollouts that end in one event-loop turn go to each file in one write (issue 13).
 * The OS faults on a batch are in disk-full.test.ts.
 */
describe('JsonlRolloutSink batches the rows written in one tick', () => {
  it('lands every row whole and in the order written, each write resolving once its line is in the file', async () => {
    const { sink, output } = await startedSink();
    const outcomes = Array.from({ length: 40 }, (_, index) => result(index, `${'é→'.repeat(index * 37)}"\n`));
    const written = outcomes.map((outcome) => sink.write(outcome).then(() => rows(output).length));
    const seen = await Promise.all(written);
    assert.ok(
      seen.every((count) => count === 40),
      'each write resolves after the whole batch reached the file',
    );
    assert.deepEqual(
      rows(output),
      outcomes.map((outcome) => outcome.row),
    );
    await sink.finish();
    assert.ok(readFileSync(output, 'utf8').endsWith('}\n'));
  });

  it('keeps each failure row in its own file, results and failures each in order, when both are queued in one tick', async () => {
    const { sink, output, failures } = await startedSink();
    const outcomes = [failure(0), result(1), failure(2), result(3), result(4), failure(5)];
    await Promise.all(outcomes.map((outcome) => sink.write(outcome)));
    // A second tick appends after the first batch.
    await Promise.all([sink.write(result(6)), sink.write(failure(7))]);
    await sink.finish();
    assert.deepEqual(
      rows(output),
      [1, 3, 4, 6].map((index) => result(index).row),
    );
    assert.deepEqual(
      rows(failures),
      [0, 2, 5, 7].map((index) => failure(index).row),
    );
  });

  it('finish() writes the rows still waiting for their tick before it closes the files, and refuses writes after', async () => {
    const { sink, output, failures } = await startedSink();
    const written = [sink.write(result(0)), sink.write(failure(1)), sink.write(result(2))];
    await sink.finish();
    assert.deepEqual(rows(output), [result(0).row, result(2).row], 'written by finish, not by the tick after it');
    assert.deepEqual(rows(failures), [failure(1).row]);
    await Promise.all(written);
    await assert.rejects(sink.write(result(3)), /JsonlRolloutSink.write after finish/);
  });
});
