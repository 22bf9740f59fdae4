import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message } from '../../src/core/index.js';
import { ARITHMETIC_FORMAT } from '../../src/environments/index.js';
import { embeddedModelDirectory } from '../../src/policy/embedded/embedded-policy.js';
import { JinjaChatTemplate, loadHfTokenizer } from '../../src/tokens/index.js';

const tokenizer = await loadHfTokenizer(embeddedModelDirectory);
const template = JinjaChatTemplate.fromConfig(tokenizer.config);
const unknown = [tokenizer.tokenId('<|pad|>')!, tokenizer.tokenId('<|unk|>')!];

describe("the embedded model's vocabulary", () => {
  it('gives every printable ASCII character, newline and tab a token of its own, so no prompt text turns into an unknown token', () => {
    const characters = ['\n', '\t', ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i))];
    for (const character of characters) {
      const ids = tokenizer.encode(character);
      assert.equal(ids.length, 1, JSON.stringify(character));
      assert.ok(!unknown.includes(ids[0]!), `${JSON.stringify(character)} is read as unknown`);
      assert.equal(tokenizer.decode(ids), character);
    }
  });

  it("reads the math environment's prompts as written: capitals, newlines, backslashes and dollars round-trip", () => {
    const prompt = 'Solve the following math problem. Put the final answer inside \\boxed{}.\n\nWhat is $\\frac{1}{2} + \\frac{1}{4}$?';
    const ids = tokenizer.encode(prompt);
    assert.equal(ids.length, prompt.length, 'one token per character');
    assert.ok(ids.every((id) => !unknown.includes(id)));
    assert.equal(tokenizer.decode(ids), prompt);
  });

  it('says what it cannot read with its own unknown token, one per character, never the padding token', () => {
    const ids = tokenizer.encode('é\n\n');
    assert.deepEqual(ids, [tokenizer.tokenId('<|unk|>'), tokenizer.tokenId('\n'), tokenizer.tokenId('\n')]);
  });

  it("has Qwen's tool-call and tool-response markers as single tokens", () => {
    for (const marker of ['<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>']) assert.equal(tokenizer.encode(marker).length, 1, marker);
  });
});

describe("the embedded model's chat template", () => {
  const call = { id: 'call_1', type: 'function' as const, function: { name: 'calculator', arguments: '{"expression":"23*45"}' } };

  it('renders an assistant turn an OpenAI client sends back with tool_calls exactly as the model wrote the call', () => {
    const sent = template.render(
      [
        { role: 'user', content: 'what is 23*45?' },
        { role: 'assistant', content: '', tool_calls: [call] },
      ],
      { addGenerationPrompt: false },
    );
    const written = template.render(
      [
        { role: 'user', content: 'what is 23*45?' },
        { role: 'assistant', content: ARITHMETIC_FORMAT.toolCall('23*45') },
      ],
      { addGenerationPrompt: false },
    );
    assert.equal(sent, written);
  });

  it('renders system prompts, tool results and environment feedback each in its own turn', () => {
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'what is 23*45?' },
      { role: 'assistant', content: '', tool_calls: [call] },
      { role: 'tool', content: '{"result":1035}', tool_call_id: 'call_1' },
      { role: 'assistant', content: '1035' },
      { role: 'environment', content: 'correct' },
    ];
    assert.equal(
      template.render(messages, { addGenerationPrompt: true }),
      '<|system|>Be brief.<|end|><|user|>what is 23*45?<|end|>' +
        '<|assistant|><tool_call>{"name": "calculator", "arguments": {"expression": "23*45"}}</tool_call><|end|>' +
        '<|user|><tool_response>{"result":1035}</tool_response><|end|><|assistant|>1035<|end|><|user|>correct<|end|><|assistant|>',
    );
  });
});
