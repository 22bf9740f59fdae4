import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import type { RolloutRecord } from '../../src/core/index.js';
import { runGroups } from '../../src/engine/index.js';
import { createBatchedEnvironment, type EnvironmentTurn } from '../../src/environments/index.js';
import type { StepResultInput } from '../../src/core/step-result.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

interface Counter {
  id: number;
}

/** A batched environment that records every batch it is handed and answers each turn with reward = its id. */
function recordingEnvironment(options: { maxBatchSize?: number; stepBatch?: (turns: readonly EnvironmentTurn<Counter>[]) => Promise<StepResultInput[]> } = {}) {
  const batches: number[][] = [];
  const environment = createBatchedEnvironment<Counter>({
    name: 'recording',
    reset: async (data) => ({ metadata: data as Counter }),
    stepBatch: async (turns) => {
      batches.push(turns.map((turn) => turn.metadata.id));
      return options.stepBatch ? options.stepBatch(turns) : turns.map((turn) => ({ reward: turn.metadata.id, terminated: true }));
    },
    ...(options.maxBatchSize === undefined ? {} : { maxBatchSize: options.maxBatchSize }),
  });
  return { environment, batches };
}

const turn = (id: number): EnvironmentTurn<Counter> => ({ messages: [{ role: 'assistant', content: `reply ${id}` }], metadata: { id } });
const ids = (count: number) => Array.from({ length: count }, (_, i) => i);
const live = () => new AbortController().signal;

describe('a batched environment', () => {
  it('gathers the steps requested in one turn of the event loop into one stepBatch call', async () => {
    const { environment, batches } = recordingEnvironment();
    await Promise.all(ids(5).map((id) => environment.step(turn(id), live())));
    assert.deepEqual(batches, [[0, 1, 2, 3, 4]]);
  });

  it('sends steps requested in later turns of the event loop in later batches', async () => {
    const { environment, batches } = recordingEnvironment();
    await environment.step(turn(0), live());
    await environment.step(turn(1), live());
    assert.deepEqual(batches, [[0], [1]]);
  });

  it('never hands stepBatch more than maxBatchSize turns', async () => {
    const { environment, batches } = recordingEnvironment({ maxBatchSize: 2 });
    await Promise.all(ids(5).map((id) => environment.step(turn(id), live())));
    assert.deepEqual(batches, [[0, 1], [2, 3], [4]]);
  });

  it('gives each caller the result for its own turn', async () => {
    const { environment } = recordingEnvironment({ maxBatchSize: 3 });
    const results = await Promise.all(ids(7).map((id) => environment.step(turn(id), live())));
    assert.deepEqual(
      results.map((result) => result.reward),
      ids(7),
    );
  });

  it('passes reset and stepBatch through unchanged', async () => {
    const { environment, batches } = recordingEnvironment();
    assert.equal(environment.name, 'recording');
    assert.deepEqual(await environment.reset({ id: 9 }, live()), { metadata: { id: 9 } });
    assert.deepEqual(await environment.stepBatch!([turn(1), turn(2)], live()), [
      { reward: 1, terminated: true },
      { reward: 2, terminated: true },
    ]);
    assert.deepEqual(batches, [[1, 2]]);
  });

  it('rejects every caller of a batch whose stepBatch rejects, and only those', async () => {
    const failure = new Error('reward model down');
    const { environment } = recordingEnvironment({
      maxBatchSize: 2,
      stepBatch: async (turns) => {
        if (turns.some((t) => t.metadata.id === 0)) throw failure;
        return turns.map((t) => ({ reward: t.metadata.id, terminated: true }));
      },
    });
    const settled = await Promise.allSettled(ids(3).map((id) => environment.step(turn(id), live())));
    assert.deepEqual(
      settled.map((outcome) => outcome.status),
      ['rejected', 'rejected', 'fulfilled'],
    );
    assert.equal((settled[0] as PromiseRejectedResult).reason, failure);
    assert.equal((settled[1] as PromiseRejectedResult).reason, failure);
  });

  it('rejects every caller, saying so, when stepBatch returns the wrong number of results', async () => {
    const { environment } = recordingEnvironment({ stepBatch: async () => [{ reward: 0, terminated: true }] });
    const settled = await Promise.allSettled(ids(3).map((id) => environment.step(turn(id), live())));
    for (const outcome of settled) {
      assert.equal(outcome.status, 'rejected');
      assert.match(String(outcome.reason), /recording: stepBatch returned 1 results for 3 turns/);
    }
  });

  it('rejects at once, without stepping, a caller whose signal is already aborted', async () => {
    const { environment, batches } = recordingEnvironment();
    const controller = new AbortController();
    controller.abort(new Error('episode timed out'));
    await assert.rejects(environment.step(turn(0), controller.signal), /episode timed out/);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(batches, []);
  });

  it('rejects a caller aborted while its batch is out, and still answers the others', async () => {
    let release!: () => void;
    const { environment } = recordingEnvironment({
      stepBatch: (turns) => new Promise((resolve) => (release = () => resolve(turns.map((t) => ({ reward: t.metadata.id, terminated: true }))))),
    });
    const controller = new AbortController();
    const aborted = environment.step(turn(0), controller.signal);
    const other = environment.step(turn(1), live());
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('stopped'));
    await assert.rejects(aborted, /stopped/);
    release();
    assert.equal((await other).reward, 1);
  });

  it('leaves no abort listener behind once a step is answered', async () => {
    const { environment } = recordingEnvironment();
    const controller = new AbortController();
    for (const id of ids(3)) await environment.step(turn(id), controller.signal);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('gets full batches from a lockstep run: every active episode steps together', async () => {
    const batches: number[] = [];
    const environment = createBatchedEnvironment<{ turns: number }>({
      name: 'lockstep-batched',
      reset: async () => ({ metadata: { turns: 0 } }),
      stepBatch: async (turns) => {
        batches.push(turns.length);
        return turns.map(({ metadata }) => ({
          observation: [{ role: 'environment', content: 'next' }],
          reward: 0.25,
          terminated: metadata.turns === 2,
          metadata: { turns: metadata.turns + 1 },
        }));
      },
    });
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const records: RolloutRecord[] = [];
    const run = runGroups([task(0), task(1)], episodeOptions(policy, environment), { groupSize: 3, schedule: { kind: 'lockstep', concurrency: 6 } });
    for await (const group of run) records.push(...(group.records as RolloutRecord[]));

    assert.deepEqual(batches, [6, 6, 6]);
    assert.equal(records.length, 6);
    for (const record of records) {
      assert.equal(record.record_type, 'rollout');
      assert.equal(record.reward, 0.75);
      assert.deepEqual(record.termination, { kind: 'env-done' });
    }
  });
});
