import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EpisodeRecord } from '../../src/core/index.js';
import { recomputeLogprobs } from '../../src/train/recompute-logprobs.js';
import { rolloutSequence } from '../../src/train/rollout-sequence.js';
import { embeddedPolicy, runArithmetic } from '../support/embedded-arithmetic.js';

// Products by one digit: the model calls its calculator, reads the answer and replies, so each rollout
// has two sampled turns with a tool response between them, all in one sequence.
const problems = ['13*8', '47*6', '23+45', '71*3'];

/** The largest |recomputed − recorded| over every generated token of the records, and how many tokens that covers. */
async function maxLogprobError(records: readonly EpisodeRecord[]): Promise<{ error: number; tokens: number; turns: number }> {
  const { model } = await embeddedPolicy();
  let error = 0;
  let tokens = 0;
  let turns = 0;
  for (const record of records) {
    const sequence = rolloutSequence(record);
    assert.ok(sequence, `rollout ${record.task_id}/${record.rollout_index} has tokens to train on`);
    const { logprobs } = recomputeLogprobs(model, sequence);
    sequence.mask.forEach((m, t) => {
      if (m === 0) return;
      error = Math.max(error, Math.abs(logprobs[t]! - sequence.recorded[t]!));
      tokens += 1;
    });
    turns += record.turns.length;
  }
  return { error, tokens, turns };
}

describe('the trainer reads what the sampler drew', () => {
  it('recomputes the recorded logprob of every generated token within 1e-5, across tool turns, at temperature 1', async () => {
    const records = await runArithmetic(problems, { temperature: 1, seed: 11 }, 2);
    const { error, tokens, turns } = await maxLogprobError(records);
    assert.ok(turns > records.length, 'some rollouts have more than one sampled turn');
    assert.ok(tokens > 100, `${tokens} generated tokens checked`);
    assert.ok(error < 1e-5, `max |recomputed − recorded| = ${error}`);
  });

  it('recomputes the raw logprobs the sampler records under temperature and top-k too (the trainer applies neither)', async () => {
    const records = await runArithmetic(problems, { temperature: 0.7, top_k: 20, seed: 12 }, 2);
    assert.ok(records.every((record) => record.turns.every((turn) => turn.logprobs_mode === 'raw')));
    const { error } = await maxLogprobError(records);
    assert.ok(error < 1e-5, `max |recomputed − recorded| = ${error}`);
  });

  it('puts the loss mask on generated tokens only: prompt, tool response and feedback tokens are masked out', async () => {
    const [record] = await runArithmetic(['13*8'], { temperature: 1, seed: 11 });
    const sequence = rolloutSequence(record!)!;
    const generated = record!.messages.filter((message) => message.generation_logprobs).flatMap((message) => message.token_ids!);
    const masked = sequence.tokens.slice(1).filter((_, t) => sequence.mask[t] === 1);
    assert.deepEqual(masked, generated);
    assert.equal(sequence.generated, generated.length);
  });
});
