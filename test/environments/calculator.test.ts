import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RolloutRecord } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { parseFinalAnswer, parseToolCall } from '../../src/environments/calculator.js';
import { calculatorEnvironment, type CalculatorMetadata } from '../../src/environments/index.js';
import { StepResult } from '../../src/core/step-result.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

const signal = new AbortController().signal;
const start: CalculatorMetadata = { expected_final_answer: 12, max_steps: 10, current_step: 0 };

async function step(content: string, metadata: CalculatorMetadata = start): Promise<StepResult> {
  return StepResult.parse(await calculatorEnvironment().step({ messages: [{ role: 'assistant', content }], metadata }, signal));
}

const text = (result: StepResult) => result.observation.map((message) => message.content).join('');

describe('parseToolCall', () => {
  it('reads [a, b, op] followed by the call suffix, with spaces and any case', () => {
    assert.deepEqual(parseToolCall('[3, 4, prod]<call: calculator>'), { a: 3, b: 4, operation: 'prod' });
    assert.deepEqual(parseToolCall(' [ -1.5 ,2e1, SUM ] <call: calculator>'), { a: -1.5, b: 20, operation: 'sum' });
  });

  it('finds no call without the suffix, with a missing or non-numeric operand, or with extra text', () => {
    assert.equal(parseToolCall('[3, 4, prod]'), undefined);
    assert.equal(parseToolCall('[3, 4]<call: calculator>'), undefined);
    assert.equal(parseToolCall('[ , 4, sum]<call: calculator>'), undefined);
    assert.equal(parseToolCall('[three, 4, sum]<call: calculator>'), undefined);
    assert.equal(parseToolCall('[3, 4, sum, 5]<call: calculator>'), undefined);
    assert.equal(parseToolCall('I will call [3, 4, sum]<call: calculator>'), undefined);
  });
});

describe('parseFinalAnswer', () => {
  it('reads a bare number or one wrapped in <final_answer>', () => {
    assert.equal(parseFinalAnswer('12'), 12);
    assert.equal(parseFinalAnswer('<final_answer> -0.5 </final_answer>'), -0.5);
    assert.equal(parseFinalAnswer('+1.2e3'), 1200);
    assert.equal(parseFinalAnswer('.25'), 0.25);
  });

  it('finds no answer in words, in an empty reply, or in a tag with text around it', () => {
    assert.equal(parseFinalAnswer('twelve'), undefined);
    assert.equal(parseFinalAnswer(''), undefined);
    assert.equal(parseFinalAnswer('1,200'), undefined);
    assert.equal(parseFinalAnswer('So: <final_answer>12</final_answer>'), undefined);
  });
});

describe('the calculator environment', () => {
  it('resets from the expected answer, with 10 steps by default, and stops at the call suffix', async () => {
    const reset = await calculatorEnvironment().reset({ expected_final_answer: 12 }, signal);
    assert.deepEqual(reset.metadata, start);
    assert.deepEqual(reset.stop_strings, ['<call: calculator>']);
    await assert.rejects(calculatorEnvironment().reset({ expected_final_answer: '12' }, signal), { kind: 'environment' });
  });

  it('answers a tool call with its result and goes on, counting the step', async () => {
    const result = await step('[3, 4, prod]<call: calculator>', { ...start, current_step: 2 });
    assert.deepEqual(result.observation, [{ role: 'environment', content: '<result>12.00000</result>' }]);
    assert.equal(result.terminated, false);
    assert.equal(result.reward, 0);
    assert.deepEqual(result.metadata, { ...start, current_step: 3 });
    assert.deepEqual(result.next_stop_strings, ['<call: calculator>']);
  });

  it('computes each operation: sum, diff, prod and div', async () => {
    const results = await Promise.all(['sum', 'diff', 'prod', 'div'].map((op) => step(`[6, 4, ${op}]<call: calculator>`)));
    assert.deepEqual(results.map(text), ['<result>10.00000</result>', '<result>2.00000</result>', '<result>24.00000</result>', '<result>1.50000</result>']);
  });

  it('ends with reward 0 when a calculation fails: division by zero or an unknown operation', async () => {
    for (const call of ['[3, 0, div]<call: calculator>', '[3, 2, pow]<call: calculator>']) {
      const result = await step(call);
      assert.match(text(result), /^<error>Calculation failed\./);
      assert.equal(result.terminated, true);
      assert.equal(result.reward, 0);
    }
  });

  it('fails the calculation for operation names an object inherits, like any other unknown one', async () => {
    for (const op of ['constructor', '__proto__']) {
      const result = await step(`[1, 2, ${op}]<call: calculator>`);
      assert.match(text(result), /^<error>Calculation failed\./, op);
      assert.equal(result.terminated, true);
    }
  });

  it('rewards a right final answer with 1 and ends the episode', async () => {
    const result = await step('<final_answer>12</final_answer>');
    assert.deepEqual(result.observation, [{ role: 'environment', content: 'Correct! The final answer is 12.00.' }]);
    assert.equal(result.reward, 1);
    assert.equal(result.terminated, true);
    assert.equal(result.answer, '12');
  });

  it('ends a wrong final answer with reward 0, saying what was expected', async () => {
    const result = await step('11');
    assert.deepEqual(result.observation, [{ role: 'environment', content: 'Incorrect final answer. Expected 12.00, got 11.00.' }]);
    assert.equal(result.reward, 0);
    assert.equal(result.terminated, true);
    assert.equal(result.answer, '11');
  });

  it('ends a reply that is neither a tool call nor a number with reward 0', async () => {
    const result = await step('Let me think about it.');
    assert.match(text(result), /^<error>Invalid response/);
    assert.equal(result.terminated, true);
    assert.equal(result.reward, 0);
  });

  it('still grades a final answer given after the last allowed tool call', async () => {
    const result = await step('12', { ...start, max_steps: 2, current_step: 2 });
    assert.equal(result.reward, 1);
    assert.equal(result.terminated, true);
  });

  it('ends the episode on a tool call beyond max_steps', async () => {
    const result = await step('[3, 4, prod]<call: calculator>', { ...start, max_steps: 2, current_step: 2 });
    assert.match(text(result), /^<error>Maximum steps reached\./);
    assert.equal(result.terminated, true);
    assert.equal(result.reward, 0);
  });

  it('runs a whole episode with the engine: two tool calls, then the right answer', async () => {
    const policy = new ScriptedPolicy({
      tokenizer,
      script: [{ text: '[2, 3, sum]<call: calculator>' }, { text: '[5, 2.4, prod]<call: calculator>' }, { text: '<final_answer>12</final_answer>' }],
    });
    const record = await runEpisode(task(0, { data: { expected_final_answer: 12 } }), 0, episodeOptions(policy, calculatorEnvironment()));
    assert.equal(record.record_type, 'rollout', JSON.stringify(record));
    const rollout = record as RolloutRecord;
    assert.equal(rollout.reward, 1);
    assert.equal(rollout.turns.length, 3);
    assert.deepEqual(rollout.termination, { kind: 'env-done' });
    const observations = rollout.messages.filter((message) => message.role === 'environment').map((message) => message.content);
    assert.deepEqual(observations, ['<result>5.00000</result>', '<result>12.00000</result>', 'Correct! The final answer is 12.00.']);
    assert.deepEqual(
      policy.requests.map((request) => request.stop_strings),
      [['<call: calculator>'], ['<call: calculator>'], ['<call: calculator>']],
    );
    assert.deepEqual(rollout.env_metadata, { expected_final_answer: 12, max_steps: 10, current_step: 2 });
  });
});
