import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message } from '../../src/core/index.js';
import { TokenLedger, type Tokenizer } from '../../src/tokens/index.js';
import { qwen3Tokenizer } from '../support/qwen3.js';

describe('the token ledger (text read lazily)', () => {
  it("keeps the text each message's decode gives, in order, however appends and reads interleave", async () => {
    const qwen3 = await qwen3Tokenizer();
    // "é" is two bytes: split across two messages, each message decodes on its own (as the ledger always did).
    // Byte-level BPE spells byte 0xC3 as "Ã" and 0xA9 as "©".
    const [e1, e2] = [[qwen3.tokenId('Ã')!], [qwen3.tokenId('©')!]];
    const messages: Message[] = [
      { role: 'user', content: 'q', token_ids: qwen3.encode('<|im_start|>user\nWhat is 2+2?<|im_end|>\n') },
      { role: 'assistant', content: '4', token_ids: [...qwen3.encode('4'), 151645], generation_logprobs: [-0.5, -0.1] },
      { role: 'user', content: '', token_ids: e1 },
      { role: 'user', content: '', token_ids: e2 },
      { role: 'user', content: 'empty', token_ids: [] },
    ];
    const ledger = new TokenLedger(qwen3);
    ledger.appendMessage(messages[0]!);
    ledger.appendMessage(messages[1]!);
    assert.equal(
      ledger.text,
      messages
        .slice(0, 2)
        .map((message) => qwen3.decode(message.token_ids!))
        .join(''),
    );
    for (const message of messages.slice(2)) ledger.appendMessage(message);
    assert.equal(ledger.text, messages.map((message) => qwen3.decode(message.token_ids!)).join(''));
    assert.equal(ledger.text, ledger.text);
    assert.deepEqual(
      ledger.tokenIds(),
      messages.flatMap((message) => message.token_ids!),
    );
    assert.equal(ledger.length, ledger.tokenIds().length);
  });

  it('keeps a segment whose decode failed: reading the text again decodes it, nothing is dropped', () => {
    let failNext = true;
    const flaky: Tokenizer = {
      encode: () => [],
      stopTokenIds: [],
      decode: (ids) => {
        if (failNext && ids[0] === 2) {
          failNext = false;
          throw new Error('decoder unavailable');
        }
        return ids.map((id) => `<${id}>`).join('');
      },
    };
    const ledger = new TokenLedger(flaky);
    ledger.appendMessage({ role: 'user', content: 'a', token_ids: [1] });
    ledger.appendMessage({ role: 'user', content: 'b', token_ids: [2] });
    assert.throws(() => ledger.text, /decoder unavailable/);
    assert.equal(ledger.text, '<1><2>');
  });

  it('hands out id lists that later appends never change', () => {
    const ledger = new TokenLedger({ encode: () => [], decode: () => '', stopTokenIds: [] });
    ledger.appendMessage({ role: 'user', content: 'q', token_ids: [1, 2] });
    const first = ledger.tokenIds();
    ledger.appendMessage({ role: 'assistant', content: 'a', token_ids: [3], generation_logprobs: [-0.5] });
    const second = ledger.tokenIds();
    ledger.appendMessage({ role: 'user', content: 'b', token_ids: [4, 5] });
    assert.deepEqual(first, [1, 2]);
    assert.deepEqual(second, [1, 2, 3]);
    assert.deepEqual(ledger.tokenIds(), [1, 2, 3, 4, 5]);
    assert.equal(ledger.length, 5);
  });

  it('lists one segment per message that carries tokens, sampled ones with their logprobs, and none for a message without tokens', () => {
    const ledger = new TokenLedger({ encode: () => [], decode: () => '', stopTokenIds: [] });
    ledger.appendMessage({ role: 'system', content: 'rendered by the server, no ids' });
    ledger.appendMessage({ role: 'user', content: 'q', token_ids: [1, 2] });
    ledger.appendMessage({ role: 'tool', content: 'nothing rendered', token_ids: [] });
    ledger.appendMessage({ role: 'assistant', content: 'a', token_ids: [3], generation_logprobs: [-0.25] });
    assert.deepEqual(ledger.segments, [
      { kind: 'user', token_ids: [1, 2] },
      { kind: 'sampled', token_ids: [3], logprobs: [-0.25] },
    ]);
    assert.deepEqual(ledger.lossMask(), [0, 0, 1]);
    assert.deepEqual(ledger.logprobs(), [0, 0, -0.25]);
  });
});
