import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GenerationRequest } from '../../src/servers/openai-compatible/generator.js';
import { visibleText } from '../../src/servers/openai-compatible/generator.js';
import { TokenPieces } from '../../src/servers/openai-compatible/token-pieces.js';
import { qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
const request = (extra: Partial<GenerationRequest> = {}): GenerationRequest => ({
  promptIds: [1],
  maxTokens: 100,
  seed: 1,
  temperature: 1,
  topP: 1,
  topK: undefined,
  stop: [],
  stopTokenIds: [],
  includeStopString: false,
  skipSpecialTokens: true,
  ...extra,
});

/**
 * The pieces of `text`'s tokens as a stream sends them, token by token, up to the token that completes
 * a stop string (where a generator stops), the rest of the answer's text going on the last piece.
 */
function streamed(text: string, asked: GenerationRequest) {
  const ids = tokenizer.encode(text);
  const pieces = new TokenPieces(tokenizer, asked);
  const sent = [];
  for (const [index, id] of ids.entries()) {
    sent.push(pieces.next(id, -index));
    const matched = asked.stop.find((stop) => tokenizer.decode(ids.slice(0, index + 1)).includes(stop));
    if (matched === undefined && index < ids.length - 1) continue;
    const answer = visibleText(tokenizer, asked, ids.slice(0, index + 1), matched ?? null);
    sent.at(-1)!.text += pieces.rest(answer);
    return { ids: ids.slice(0, index + 1), sent, answer };
  }
  throw new Error('empty text');
}

describe('a generation is cut into one piece per token as its tokens come, for streaming', () => {
  it('gives each token its id, logprob and text, the texts joining to the whole', () => {
    const { ids, sent, answer } = streamed('Hello there, world', request());
    assert.deepEqual(
      sent.map((piece) => piece.tokenId),
      ids,
    );
    assert.deepEqual(
      sent.map((piece) => piece.logprob),
      ids.map((_, i) => -i),
    );
    assert.equal(sent.map((piece) => piece.text).join(''), 'Hello there, world');
    assert.equal(answer, 'Hello there, world');
    assert.ok(
      sent.every((piece) => piece.text !== ''),
      'every token of plain text is sent as it comes',
    );
  });

  it('never splits a character: a token holding half of one adds nothing, the next brings it whole', () => {
    const text = '日本語の文章 🦜🦩 龘靐 ok';
    const { sent } = streamed(text, request());
    assert.equal(sent.map((piece) => piece.text).join(''), text);
    assert.ok(sent.every((piece) => !piece.text.includes('\uFFFD')));
    assert.ok(
      sent.some((piece) => piece.text === ''),
      'some token held half a character',
    );
  });

  it('sends no text the answer does not have: a stop string that will be trimmed is never sent, not even its start', () => {
    const { sent, answer } = streamed('four. STOP and more', request({ stop: ['STOP'] }));
    assert.equal(answer, 'four. ');
    assert.equal(sent.map((piece) => piece.text).join(''), 'four. ');
    assert.ok(sent.slice(0, -1).every((piece) => !piece.text.includes('S')));
  });

  it('holds back what may begin a stop string only until it cannot, then sends it', () => {
    const { sent, answer } = streamed('it is STOne cold', request({ stop: ['STOP'] }));
    assert.equal(sent.map((piece) => piece.text).join(''), answer);
    assert.equal(answer, 'it is STOne cold');
    const carrying = sent.findIndex((piece) => piece.text.includes('ST'));
    assert.ok(tokenizer.decode(tokenizer.encode(answer).slice(0, carrying + 1)).includes('STOn'), 'ST went out with the token that ruled STOP out');
  });

  it('keeps a stop string asked to be kept, and hides special tokens unless asked to show them', () => {
    assert.equal(
      streamed('four. STOP', request({ stop: ['STOP'], includeStopString: true }))
        .sent.map((piece) => piece.text)
        .join(''),
      'four. STOP',
    );
    const end = tokenizer.stopTokenIds[0]!;
    const hidden = new TokenPieces(tokenizer, request());
    assert.equal([...tokenizer.encode('four'), end].map((id) => hidden.next(id, 0).text).join(''), 'four');
    const shown = new TokenPieces(tokenizer, request({ skipSpecialTokens: false }));
    assert.equal([...tokenizer.encode('four'), end].map((id) => shown.next(id, 0).text).join(''), `four${tokenizer.decode([end])}`);
  });
});
