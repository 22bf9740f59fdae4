import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpisodeTask, SamplingParams } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { parseHermesToolCalls, sessionCounterEnvironment } from '../../src/environments/index.js';
import { StepResult } from '../../src/core/step-result.js';
import { responsesInputToMessages, responsesToolsToChatTools, ResponsesTool, TemplateRenderer } from '../../src/tokens/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const call = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe('tool calls in model text', () => {
  it('parses Hermes/Qwen <tool_call> blocks in order, with object or JSON-string arguments', () => {
    const blocks = parseHermesToolCalls(
      `Let me add.\n${call('increment_counter', { count: 1 })}\n<tool_call>{"name": "get_counter_value", "arguments": "{}"}</tool_call>`,
    );
    assert.deepEqual(blocks, [{ call: { name: 'increment_counter', arguments: { count: 1 } } }, { call: { name: 'get_counter_value', arguments: {} } }]);
  });

  it('reports a malformed block instead of skipping it', () => {
    const blocks = parseHermesToolCalls('<tool_call>{"name": "x", "arguments": [1]}</tool_call><tool_call>not json</tool_call>');
    assert.ok(blocks.length === 2 && blocks.every((block) => 'error' in block));
  });
});

describe('the tool-calling loop (session counter)', () => {
  const environment = sessionCounterEnvironment();
  const signal = new AbortController().signal;
  const step = async (metadata: unknown, content: string) =>
    StepResult.parse(await environment.step({ messages: [{ role: 'assistant', content }], metadata }, signal));

  it('runs each call in order, answers each as a tool message, and keeps going', async () => {
    const { metadata } = await environment.reset({ initial_count: 3, expected_count: 6 }, signal);
    const result = await step(metadata, `${call('increment_counter', { count: 1 })}${call('increment_counter', { count: 2 })}${call('get_counter_value', {})}`);
    assert.equal(result.terminated, false);
    assert.deepEqual(
      result.observation.map((message) => [message.role, message.content]),
      [
        ['tool', '{"success":true}'],
        ['tool', '{"success":true}'],
        ['tool', '{"count":6}'],
      ],
    );
  });

  it('names each call (call_<turn>_<i>) and answers it under that id, so the record shows which answer is whose', async () => {
    const { metadata } = await environment.reset({ initial_count: 3, expected_count: 6 }, signal);
    const result = await step(metadata, `${call('increment_counter', { count: 1 })}${call('get_counter_value', {})}`);
    assert.deepEqual(
      result.observation.map((message) => message.tool_call_id),
      ['call_0_0', 'call_0_1'],
    );
    assert.deepEqual(result.tool_calls, [
      { id: 'call_0_0', type: 'function', function: { name: 'increment_counter', arguments: '{"count":1}' } },
      { id: 'call_0_1', type: 'function', function: { name: 'get_counter_value', arguments: '{}' } },
    ]);
  });

  it('answers unknown tools and malformed calls with an error the model can read', async () => {
    const { metadata } = await environment.reset({ initial_count: 0, expected_count: 1 }, signal);
    const result = await step(metadata, `${call('reset_counter', {})}<tool_call>{oops}</tool_call>`);
    assert.equal(result.terminated, false);
    const errors = result.observation.map((message) => (JSON.parse(message.content) as { error: string }).error);
    assert.equal(errors.length, 2);
    assert.equal(errors[0], 'unknown tool "reset_counter"');
    assert.match(errors[1]!, /^invalid tool call/);
  });

  it('verifies when the model answers without a tool call', async () => {
    const { metadata } = await environment.reset({ initial_count: 5, expected_count: 5 }, signal);
    const result = await step(metadata, 'The count is 5.');
    assert.deepEqual([result.terminated, result.reward], [true, 1]);
  });

  it("runs NeMo Gym's session-state rows end to end on the Qwen3 template, with the row's tools in the prompt", async () => {
    const tokenizer = await qwen3Tokenizer();
    const tools = responsesToolsToChatTools([
      ResponsesTool.parse({
        type: 'function',
        name: 'increment_counter',
        parameters: { type: 'object', properties: { count: { type: 'integer' } } },
        strict: true,
      }),
      ResponsesTool.parse({ type: 'function', name: 'get_counter_value', parameters: { type: 'object', properties: {} }, strict: true }),
    ]);
    const task = EpisodeTask.parse({
      id: 'c',
      index: 0,
      messages: responsesInputToMessages('add 1 then add 2 then get the count'),
      tools,
      data: { initial_count: 3, expected_count: 6 },
    });
    const replies = [
      `${call('increment_counter', { count: 1 })}\n${call('increment_counter', { count: 2 })}`,
      call('get_counter_value', {}),
      'The count is 6.',
    ];
    const policy = new ScriptedPolicy({ tokenizer, script: (_request, turn) => ({ token_ids: [...tokenizer.encode(replies[turn]!), 151645] }) });
    const renderer = new TemplateRenderer(tokenizer, await qwen3Template(), { drift: 'strict' });
    const record = await runEpisode(task, 0, { policy, environment, renderer, maxTurns: 6, maxSeqLen: 4096, sampling: SamplingParams.parse({}) });
    assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
    assert.equal(record.reward, 1);
    assert.equal(record.turns.length, 3);
    assert.equal(record.token_drift_count, 0);
    assert.match(tokenizer.decode(policy.requests[0]!.prompt_token_ids), /<tools>[\s\S]*increment_counter[\s\S]*<\/tools>/);
    assert.match(tokenizer.decode(policy.requests[1]!.prompt_token_ids), /<tool_response>\n\{"success":true\}\n<\/tool_response>/);
  });
});
