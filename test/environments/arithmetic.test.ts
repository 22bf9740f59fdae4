import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message, RolloutRecord } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { evaluateArithmetic } from '../../src/environments/arithmetic-expression.js';
import {
  StepResult,
  arithmeticEnvironment,
  arithmeticPrompt,
  generateArithmeticTasks,
  type ArithmeticMetadata,
} from '../../src/environments/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

const signal = new AbortController().signal;

async function start(data: unknown = { problem: '23*45', answer: 1035 }): Promise<ArithmeticMetadata> {
  return (await arithmeticEnvironment().reset(data, signal)).metadata;
}

async function step(content: string, metadata: ArithmeticMetadata): Promise<StepResult & { metadata: ArithmeticMetadata }> {
  const messages: Message[] = [...arithmeticPrompt(metadata), { role: 'assistant', content }];
  const result = StepResult.parse(await arithmeticEnvironment().step({ messages, metadata }, signal));
  return result as StepResult & { metadata: ArithmeticMetadata };
}

const text = (result: StepResult) => result.observation.map((message) => message.content).join('');

describe('evaluateArithmetic', () => {
  it('binds * tighter than + and -', () => {
    assert.equal(evaluateArithmetic('2+3*4'), 14);
    assert.equal(evaluateArithmetic('10-2*3'), 4);
    assert.equal(evaluateArithmetic('2*3*4-1'), 23);
  });

  it('reads a leading minus and ignores spaces', () => {
    assert.equal(evaluateArithmetic('-5+2'), -3);
    assert.equal(evaluateArithmetic(' 23 * 45 '), 1035);
  });

  it('refuses division, parentheses, words and the empty expression', () => {
    for (const expression of ['2/3', '(1+2)', 'abc', '', '2+', '2**3']) {
      assert.equal(evaluateArithmetic(expression), undefined, JSON.stringify(expression));
    }
  });
});

describe('arithmetic tasks', () => {
  it('gives the same tasks for the same seed, and other tasks for another seed', () => {
    assert.deepEqual(generateArithmeticTasks(9, 42), generateArithmeticTasks(9, 42));
    assert.notDeepEqual(generateArithmeticTasks(9, 42), generateArithmeticTasks(9, 43));
  });

  it('cycles through 2-digit sums, products and 3-term sums, each with its right answer', () => {
    const tasks = generateArithmeticTasks(9, 7);
    const shapes = [/^\d{2}\+\d{2}$/, /^\d{2}\*\d{1,2}$/, /^\d{2}\+\d{2}\+\d{3}$/];
    for (const [i, generated] of tasks.entries()) {
      assert.match(generated.problem, shapes[i % 3]!);
      const terms = generated.problem.split(/[+*]/).map(Number);
      const expected = generated.problem.includes('*') ? terms[0]! * terms[1]! : terms.reduce((a, b) => a + b, 0);
      assert.equal(generated.answer, expected, generated.problem);
      assert.equal(generated.max_attempts, 2);
      assert.equal(generated.max_tool_calls, 3);
    }
  });

  it('asks the question exactly as the model was trained to read it', () => {
    assert.deepEqual(arithmeticPrompt({ problem: '23+45' }), [{ role: 'user', content: 'what is 23+45?' }]);
  });
});

describe('the arithmetic environment', () => {
  it('resets with no attempts or tool calls used, stopping generation at </calc>', async () => {
    const reset = await arithmeticEnvironment().reset({ problem: '23+45', answer: 68 }, signal);
    assert.deepEqual(reset.metadata, { problem: '23+45', answer: 68, max_attempts: 2, max_tool_calls: 3, attempts: 0, tool_calls: 0 });
    assert.deepEqual(reset.stop_strings, ['</calc>']);
    await assert.rejects(arithmeticEnvironment().reset({ problem: '23+45' }, signal), { kind: 'environment' });
  });

  it('rewards a right direct answer with 1 and ends the episode', async () => {
    const result = await step('68', await start({ problem: '23+45', answer: 68 }));
    assert.equal(text(result), 'correct');
    assert.equal(result.reward, 1);
    assert.equal(result.terminated, true);
    assert.equal(result.answer, '68');
  });

  it('lets a wrong first answer try again, and a right second answer still earns 1', async () => {
    const first = await step('1025', await start());
    assert.equal(text(first), 'incorrect, try again');
    assert.equal(first.terminated, false);
    assert.equal(first.reward, 0);
    const second = await step('1035', first.metadata);
    assert.equal(text(second), 'correct');
    assert.equal(second.reward, 1);
    assert.equal(second.terminated, true);
  });

  it('ends with reward 0 after max_attempts wrong answers', async () => {
    const first = await step('1', await start());
    const second = await step('not a number', first.metadata);
    assert.equal(text(second), 'incorrect');
    assert.equal(second.reward, 0);
    assert.equal(second.terminated, true);
    assert.equal(second.metadata.attempts, 2);
  });

  it('answers a <calc> tool call with its result, using no attempt', async () => {
    const result = await step('<calc>23*45</calc>', await start());
    assert.deepEqual(result.observation, [{ role: 'environment', content: '<result>1035</result>' }]);
    assert.equal(result.terminated, false);
    assert.equal(result.reward, 0);
    assert.equal(result.metadata.tool_calls, 1);
    assert.equal(result.metadata.attempts, 0);
  });

  it('answers a malformed calculation with <result>error</result> and goes on', async () => {
    const result = await step('<calc>23/45</calc>', await start());
    assert.equal(text(result), '<result>error</result>');
    assert.equal(result.terminated, false);
  });

  it('ends with reward 0 when the model calls the tool more than max_tool_calls times', async () => {
    let metadata = await start({ problem: '23*45', answer: 1035, max_tool_calls: 2 });
    for (let i = 0; i < 2; i++) metadata = (await step('<calc>23*45</calc>', metadata)).metadata;
    const result = await step('<calc>23*45</calc>', metadata);
    assert.equal(text(result), 'incorrect');
    assert.equal(result.terminated, true);
    assert.equal(result.reward, 0);
  });

  it('runs a whole episode with the engine: a tool call, then the answer it gave', async () => {
    const problem = { problem: '23*45', answer: 1035 };
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: '<calc>23*45</calc>' }, { text: '1035' }] });
    const record = await runEpisode(
      task(0, { messages: arithmeticPrompt(problem), data: problem }),
      0,
      episodeOptions(policy, arithmeticEnvironment()),
    );
    assert.equal(record.record_type, 'rollout', JSON.stringify(record));
    const rollout = record as RolloutRecord;
    assert.equal(rollout.turns.length, 2);
    assert.equal(rollout.reward, 1);
    assert.deepEqual(rollout.termination, { kind: 'env-done' });
    assert.deepEqual(policy.requests[0]!.stop_strings, ['</calc>']);
    const secondPrompt = tokenizer.decode(policy.requests[1]!.prompt_token_ids);
    assert.ok(secondPrompt.includes('<result>1035</result>'), secondPrompt);
    assert.ok(secondPrompt.startsWith('user: what is 23*45?\n'), secondPrompt);
  });
});
