import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findToolCallParser, hermesToolCallParser, toolCallParsers, toToolCall } from '../../src/environments/index.js';

describe('tool-call parsers', () => {
  it('are found by name; hermes reads Qwen and Hermes <tool_call> blocks', () => {
    assert.equal(findToolCallParser('hermes'), hermesToolCallParser);
    assert.equal(findToolCallParser('nope'), undefined);
    assert.deepEqual(
      toolCallParsers.map((parser) => parser.name),
      ['hermes'],
    );
  });

  it('names each call call_<turn>_<i>, so a tool message answers the same id on every run', () => {
    const text =
      'Adding.\n<tool_call>\n{"name": "increment_counter", "arguments": {"count": 1}}\n</tool_call>\n<tool_call>\n{"name": "get_counter_value", "arguments": "{}"}\n</tool_call>';
    const turn = hermesToolCallParser.parse(text, 2);
    assert.equal(turn.text, 'Adding.', 'the text outside the markup');
    assert.deepEqual(
      turn.blocks.map((block) => block.id),
      ['call_2_0', 'call_2_1'],
    );
    assert.deepEqual(turn.blocks.map(toToolCall), [
      { id: 'call_2_0', type: 'function', function: { name: 'increment_counter', arguments: '{"count":1}' } },
      { id: 'call_2_1', type: 'function', function: { name: 'get_counter_value', arguments: '{}' } },
    ]);
  });

  it('keeps a malformed block as an error with its id, its source, and the name when it is legible', () => {
    const turn = hermesToolCallParser.parse('<tool_call>{"name": "increment_counter", "arguments": {"count": }}</tool_call><tool_call>oops</tool_call>', 0);
    assert.equal(turn.text, '');
    const [named, unnamed] = turn.blocks;
    assert.ok(named && 'error' in named && named.name === 'increment_counter' && named.id === 'call_0_0');
    assert.ok(unnamed && 'error' in unnamed && unnamed.name === undefined && unnamed.source === 'oops');
    assert.deepEqual(toToolCall(named).function, { name: 'increment_counter', arguments: '{"name": "increment_counter", "arguments": {"count": }}' });
  });

  it('finds nothing in a plain answer', () => {
    assert.deepEqual(hermesToolCallParser.parse('The count is 6.', 1), { text: 'The count is 6.', blocks: [] });
  });
});
