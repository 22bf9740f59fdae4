import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rowToTask } from '../../src/collect/agent.js';
import type { MaterializedRow } from '../../src/core/result-row.js';
import type { EpisodeTask } from '../../src/core/episode-task.js';

const row = (params: Record<string, unknown>) =>
  ({
    responses_create_params: { input: 'what is 1+2?', ...params },
    agent_ref: { name: 'arithmetic' },
    _ng_task_index: 0,
    _ng_rollout_index: 1,
  }) as MaterializedRow;
const seedOf = (params: Record<string, unknown>) => (rowToTask(row(params)) as EpisodeTask).sampling?.seed;

describe("a row's seed reaches gymnast's loop wherever NeMo Gym's collector puts it", () => {
  it('from responses_create_params.seed (002 rollout_collection.py _preprocess_rows_from_config: num_repeats_add_seed)', () => {
    assert.equal(seedOf({ seed: 1 }), 1);
  });

  it('from metadata.extra_body (NeMo Gym since #1099), the top-level seed winning when both are there', () => {
    assert.equal(seedOf({ metadata: { extra_body: '{"seed":4}' } }), 4);
    assert.equal(seedOf({ seed: 1, metadata: { extra_body: '{"seed":4}' } }), 1);
    assert.equal(seedOf({}), undefined);
  });

  it('refuses a top-level seed that is not a whole number, naming the field', () => {
    const issues = rowToTask(row({ seed: 1.5 }));
    assert.ok(Array.isArray(issues));
    assert.deepEqual(
      issues.map((issue) => `${issue.field}: ${issue.message}`),
      ['responses_create_params.seed: expected a whole number, got 1.5'],
    );
  });
});
