import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MaterializedRow, ReportedFailureError, type EpisodeRecord } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { episodeOutcome } from '../../src/collect/output-row.js';
import { ScriptedEnvironment, ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

const call = { id: 'call_0_0', type: 'function' as const, function: { name: 'look', arguments: '{}' } };
const row = MaterializedRow.parse({
  responses_create_params: { input: 'task 0' },
  agent_ref: { name: 'env' },
  _ng_task_index: 0,
  _ng_rollout_index: 0,
  question: 'q',
});

describe('what environments report beyond rewards', () => {
  it('hands each step the task data, the tokens so far, and whether another turn can follow', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'one' }, { text: 'two' }] });
    const environment = new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'environment', content: 'go on' }], reward: 0, terminated: false }) });
    await runEpisode(task(0, { data: { level: 3 } }), 0, episodeOptions(policy, environment, { maxTurns: 2 }));
    const [first, second] = environment.turns;
    assert.deepEqual([first!.data, first!.final, second!.final], [{ level: 3 }, false, true], 'the second of two allowed turns is final');
    const prompt1 = policy.requests[0]!.prompt_token_ids.length;
    const prompt2 = policy.requests[1]!.prompt_token_ids.length;
    assert.deepEqual(first!.usage, { input_tokens: prompt1, output_tokens: 3, total_tokens: prompt1 + 3 });
    assert.deepEqual(
      second!.usage,
      { input_tokens: prompt1 + prompt2, output_tokens: 6, total_tokens: prompt1 + prompt2 + 6 },
      "summed over turns, as NeMo Gym's response.usage",
    );
  });

  it('shows the tool calls an environment read on the sampled message, whose text stays as sampled', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: '<call look>' }, { text: 'done' }] });
    const environment = new ScriptedEnvironment({
      step: (_turn, index) =>
        index === 0
          ? { observation: [{ role: 'tool', content: 'a room', tool_call_id: 'call_0_0' }], reward: 0, terminated: false, tool_calls: [call] }
          : { observation: [], reward: 1, terminated: true },
    });
    const record = await runEpisode(task(0), 0, episodeOptions(policy, environment));
    const [assistant, tool, answer] = record.messages.slice(1);
    assert.deepEqual([assistant!.content, assistant!.tool_calls], ['<call look>', [call]]);
    assert.equal(tool!.tool_call_id, 'call_0_0');
    assert.equal(answer!.tool_calls, undefined);
    assert.equal(policy.requests[1]!.messages[1]!.tool_calls, undefined, 'the policy is prompted with the text it sampled, not the parsed calls');
  });

  it('merges reported fields over the steps (a later value wins) and writes them at the top of the row, never over its own keys', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }, { text: 'b' }] });
    const environment = new ScriptedEnvironment({
      step: (_turn, index) =>
        index === 0
          ? { observation: [{ role: 'environment', content: 'more' }], reward: 0, terminated: false, fields: { info: { step: 0 }, seen: 1 } }
          : {
              observation: [],
              reward: 1,
              terminated: true,
              fields: { info: { step: 1 }, response: 'not mine', reward: 7, messages: [], _ng_task_index: 9, extracted_answer: 3 },
            },
    });
    const record = await runEpisode(task(0), 0, episodeOptions(policy, environment));
    assert.deepEqual(record.env_fields, { info: { step: 1 }, seen: 1, response: 'not mine', reward: 7, messages: [], _ng_task_index: 9, extracted_answer: 3 });
    const outcome = episodeOutcome(row, record, 1);
    assert.equal(outcome.kind, 'result');
    const written = outcome.row as Record<string, unknown>;
    assert.deepEqual([written.info, written.seen, written.reward, written._ng_task_index, written.extracted_answer], [{ step: 1 }, 1, 1, 0, undefined]);
    assert.equal((written.messages as unknown[]).length, 4);
    assert.equal(typeof written.response, 'object');
  });

  it('records a failure an environment reports as a failure with what it reported, never as a reward', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'answer' }] });
    const environment = new ScriptedEnvironment({
      step: () => {
        throw new ReportedFailureError('judge', 'the judge failed: no verdict', {
          _ng_failure_class: 'judge_failed',
          _ng_failure_judge_error: 'no verdict',
          _ng_other: 1,
          info: 'x',
        });
      },
    });
    const record: EpisodeRecord = await runEpisode(task(0), 0, episodeOptions(policy, environment));
    assert.equal(record.record_type, 'failure');
    assert.equal(record.record_type === 'failure' && record.failure_class, 'env-error');
    const outcome = episodeOutcome(row, record, 1);
    assert.equal(outcome.kind, 'failure');
    const written = outcome.row as Record<string, unknown>;
    assert.deepEqual(
      [written._ng_failure_class, written.nemo_gym_failure_class, written._ng_failure_judge_error, written._ng_other, written.info, 'reward' in written],
      ['env-error', 'judge_failed', 'no verdict', undefined, 'x', false],
    );
  });

  it('leaves the records of environments that report nothing as they were', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment({ step: () => ({ observation: [], reward: 1, terminated: true }) });
    const record = await runEpisode(task(0), 0, episodeOptions(policy, environment));
    assert.ok(!('env_fields' in record));
    assert.ok(record.messages.every((message) => !('tool_calls' in message)));
  });
});
