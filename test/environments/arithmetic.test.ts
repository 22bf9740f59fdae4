import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SamplingParams, StepResult, type Message, type RolloutRecord } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { evaluateArithmetic } from '../../src/environments/arithmetic-expression.js';
import {
  ARITHMETIC_FORMAT,
  arithmeticEnvironment,
  parseHermesToolCalls,
  arithmeticPrompt,
  generateArithmeticTasks,
  type ArithmeticMetadata,
} from '../../src/environments/index.js';
import type { Environment } from '../../src/environments/environment.js';
import { environmentToolBox } from '../../src/environments/tool-environment.js';
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

const call = (expression: string) => ARITHMETIC_FORMAT.toolCall(expression);

describe('the arithmetic environment', () => {
  it("resets with no attempts or tool calls used and no stop strings: a turn ends at the model's end token, tool calls too", async () => {
    const reset = await arithmeticEnvironment().reset({ problem: '23+45', answer: 68 }, signal);
    assert.deepEqual(reset.metadata, { problem: '23+45', answer: 68, max_attempts: 2, max_tool_calls: 3, attempts: 0, tool_calls: 0 });
    assert.equal(reset.stop_strings, undefined);
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

  it("writes a calculator call as Qwen's chat template renders one, which the Hermes parser reads", () => {
    assert.equal(call('23*45'), '<tool_call>{"name": "calculator", "arguments": {"expression": "23*45"}}</tool_call>');
    assert.deepEqual(parseHermesToolCalls(call('23*45')), [{ call: { name: 'calculator', arguments: { expression: '23*45' } } }]);
  });

  it("answers a calculator <tool_call> with a tool message holding its result under the call's id, using no attempt", async () => {
    const result = await step(call('23*45'), await start());
    assert.deepEqual(result.observation, [{ role: 'tool', content: '{"result":1035}', tool_call_id: 'call_0_0' }]);
    assert.deepEqual(result.tool_calls, [{ id: 'call_0_0', type: 'function', function: { name: 'calculator', arguments: '{"expression":"23*45"}' } }]);
    assert.equal(result.terminated, false);
    assert.equal(result.reward, 0);
    assert.equal(result.metadata.tool_calls, 1);
    assert.equal(result.metadata.attempts, 0);
  });

  it('answers what it cannot compute with an error the model can read, and goes on', async () => {
    const cases = [
      [call('23/45'), /cannot evaluate "23\/45"/],
      ['<tool_call>{"name": "weather", "arguments": {"city": "sf"}}</tool_call>', /unknown tool "weather": the only tool is calculator/],
      ['<tool_call>{"name": "calculator", "arguments": {"expression": 23}}</tool_call>', /expected \{"expression": string\}/],
      ['<tool_call>{"name": "calculator", "arguments": {"expression": "2</tool_call>', /invalid tool call/],
    ] as const;
    for (const [said, error] of cases) {
      const result = await step(said, await start());
      assert.equal(result.observation.length, 1);
      assert.equal(result.observation[0]!.role, 'tool');
      assert.match((JSON.parse(text(result)) as { error: string }).error, error);
      assert.equal(result.terminated, false);
    }
  });

  it('ends with reward 0 when the model calls the tool more than max_tool_calls times', async () => {
    let metadata = await start({ problem: '23*45', answer: 1035, max_tool_calls: 2 });
    for (let i = 0; i < 2; i++) metadata = (await step(call('23*45'), metadata)).metadata;
    const result = await step(call('23*45'), metadata);
    assert.equal(text(result), 'incorrect');
    assert.equal(result.terminated, true);
    assert.equal(result.reward, 0);
  });

  it('serves its calculator as a tool box (one endpoint per tool under `serve resources`), counting calls against max_tool_calls', async () => {
    const toolBox = environmentToolBox(arithmeticEnvironment() as Environment)!;
    assert.deepEqual(toolBox.names, ['calculator']);
    const first = await toolBox.call('calculator', { expression: '23*45' }, await start({ problem: '23*45', answer: 1035, max_tool_calls: 1 }));
    assert.deepEqual(first.output, { result: 1035 });
    const second = await toolBox.call('calculator', { expression: '1+1' }, first.metadata);
    assert.deepEqual(second.output, { error: 'more than 1 calculator calls' });
  });

  it('runs a whole episode with the engine: a tool call, its result as a tool message, then the answer', async () => {
    const problem = { problem: '23*45', answer: 1035 };
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: call('23*45') }, { text: '1035' }] });
    const record = await runEpisode(
      task(0, { messages: arithmeticPrompt(problem), data: problem }),
      0,
      // One character is one token here: room for the call's 84.
      episodeOptions(policy, arithmeticEnvironment(), { sampling: SamplingParams.parse({ max_tokens: 100, seed: 7 }) }),
    );
    assert.equal(record.record_type, 'rollout', JSON.stringify(record));
    const rollout = record as RolloutRecord;
    assert.equal(rollout.turns.length, 2);
    assert.equal(rollout.reward, 1);
    assert.deepEqual(rollout.termination, { kind: 'env-done' });
    assert.deepEqual(policy.requests[0]!.stop_strings, []);
    assert.deepEqual(
      rollout.messages[1]!.tool_calls?.map((toolCall) => toolCall.function.name),
      ['calculator'],
    );
    const secondPrompt = tokenizer.decode(policy.requests[1]!.prompt_token_ids);
    assert.ok(secondPrompt.includes('tool: {"result":1035}'), secondPrompt);
    assert.ok(secondPrompt.startsWith('user: what is 23*45?\n'), secondPrompt);
  });
});
