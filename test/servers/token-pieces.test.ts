import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tokenPieces } from '../../src/servers/openai-compatible/token-pieces.js';
import { qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
const generation = (text: string, ids = tokenizer.encode(text)) => ({ tokenIds: ids, logprobs: ids.map((_, i) => -i), text, finish: 'stop' as const, stopReason: null });

describe('a finished generation is cut back into one piece per token for streaming', () => {
  it('gives each token its id, logprob and text, the texts joining to the whole', () => {
    const pieces = tokenPieces(tokenizer, generation('Hello there, world'));
    assert.deepEqual(pieces.map((piece) => piece.tokenId), tokenizer.encode('Hello there, world'));
    assert.deepEqual(pieces.map((piece) => piece.logprob), pieces.map((_, i) => -i));
    assert.equal(pieces.map((piece) => piece.text).join(''), 'Hello there, world');
  });

  it('never splits a character: a token holding half of one adds nothing, the next brings it whole', () => {
    const text = '日本語の文章 🙂 ok';
    const pieces = tokenPieces(tokenizer, generation(text));
    assert.equal(pieces.map((piece) => piece.text).join(''), text);
    assert.ok(pieces.every((piece) => !piece.text.includes('\uFFFD')));
  });

  it('sends no text the answer does not have: after a trimmed stop string, the tokens add nothing', () => {
    const ids = tokenizer.encode('four. STOP and more');
    const pieces = tokenPieces(tokenizer, generation('four. ', ids));
    assert.equal(pieces.length, ids.length);
    assert.equal(pieces.map((piece) => piece.text).join(''), 'four. ');
  });
});
