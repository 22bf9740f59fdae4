import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { replyList, type SampledReply } from '../../src/policy/sampled-reply.js';
import { sampledReplyProblem } from '../../src/policy/sampled-reply-problem.js';
import { qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();

/** A completions-shaped reply of `ids` and `text`, each id with logprob -0.5 unless given. */
function reply(ids: readonly number[], text: string, changes: Partial<SampledReply> = {}): SampledReply {
  return {
    tokenIds: replyList(ids, 'choices[0].token_ids'),
    logprobs: replyList(
      ids.map(() => -0.5),
      'choices[0].logprobs.token_logprobs',
    ),
    text,
    textPath: 'choices[0].text',
    textIs: 'decoded',
    ...changes,
  };
}

const problem = (sampled: SampledReply) => sampledReplyProblem(sampled, tokenizer);

describe('a sampled reply the sampler could have produced', () => {
  it('is its ids with their decoded text, special tokens included', () => {
    const ids = tokenizer.encode('<think>\nhmm\n</think>\n\nthe answer is 4<|im_end|>');
    assert.equal(problem(reply(ids, tokenizer.decode(ids))), undefined);
  });

  it('may stop inside its last token, where a stop string ended (vLLM cuts the text right after it)', () => {
    const ids = tokenizer.encode('x</calc>\n'); // the last token is ">\n"
    assert.equal(problem(reply(ids, 'x</calc>')), undefined);
  });

  it('may hold back a character whose bytes are not all sampled, with the text of the tokens it shares', () => {
    const ids = tokenizer.encode('the answer is 4. I like 🍣').slice(0, -1); // the emoji's last byte not sampled
    assert.match(tokenizer.decode(ids), /\uFFFD$/);
    assert.equal(problem(reply(ids, 'the answer is 4. I like')), undefined);
    assert.equal(problem(reply(ids, tokenizer.decode(ids))), undefined, 'or keep it, as U+FFFD');
  });

  it('may keep a leading space that the ids lose decoded alone (a SentencePiece first token, decoded by the server after the prompt)', () => {
    const ids = tokenizer.encode('Hello world');
    assert.equal(problem(reply(ids, ' Hello world')), undefined);
    assert.equal(problem(reply(ids, ' Hello world', { textIs: 'within-decoded' })), undefined);
  });

  it('from a chat server may be only part of the decoded ids (a reasoning or tool-call parser moved the rest)', () => {
    const ids = tokenizer.encode('<think>\nhmm\n</think>\n\nthe answer is 4<|im_end|>');
    assert.equal(problem(reply(ids, 'the answer is 4', { textIs: 'within-decoded' })), undefined);
  });
});

describe('a sampled reply the sampler could not have produced', () => {
  const ids = tokenizer.encode('the answer is four, as two and two make four');

  it('has ids outside the vocabulary, or that are not whole numbers', () => {
    assert.equal(problem(reply([...ids.slice(0, 3), 151_999], 'x')), `choices[0].token_ids[3] = 151999 is outside the vocabulary [0, ${tokenizer.vocabSize})`);
    assert.equal(problem(reply([-1], 'x')), `choices[0].token_ids[0] = -1 is outside the vocabulary [0, ${tokenizer.vocabSize})`);
    assert.equal(problem(reply([1.5], 'x')), `choices[0].token_ids[0] = 1.5 is outside the vocabulary [0, ${tokenizer.vocabSize})`);
  });

  it('has a logprob missing, positive or not a number, or not one per id', () => {
    const text = tokenizer.decode(ids);
    assert.equal(
      problem(reply(ids, text, { logprobs: replyList([null, ...ids.slice(1).map(() => -1)], 'choices[0].logprobs.token_logprobs') })),
      'choices[0].logprobs.token_logprobs[0] = null is not a log-probability (a finite number ≤ 0)',
    );
    assert.equal(
      problem(
        reply(ids, text, {
          logprobs: replyList(
            ids.map((_, i) => (i === 2 ? 0.25 : -1)),
            'choices[0].logprobs.token_logprobs',
          ),
        }),
      ),
      'choices[0].logprobs.token_logprobs[2] = 0.25 is not a log-probability (a finite number ≤ 0)',
    );
    assert.equal(
      problem(
        reply(ids, text, {
          logprobs: replyList(
            ids.map((_, i) => (i === 1 ? Number.NaN : -1)),
            'choices[0].logprobs.token_logprobs',
          ),
        }),
      ),
      'choices[0].logprobs.token_logprobs[1] = NaN is not a log-probability (a finite number ≤ 0)',
    );
    assert.equal(
      problem(reply(ids, text, { logprobs: replyList([-1], 'choices[0].logprobs.token_logprobs') })),
      `choices[0].token_ids has ${ids.length} token ids but choices[0].logprobs.token_logprobs has 1 logprobs: there is one logprob per sampled token`,
    );
  });

  it('gives two different ids for one token where it carries them twice', () => {
    const again = replyList([...ids.slice(0, 2), ids[2]! + 1, ...ids.slice(3)], 'output_ids');
    assert.equal(
      problem(reply(ids, tokenizer.decode(ids), { tokenIdsAgain: again })),
      `choices[0].token_ids[2] = ${ids[2]} but output_ids[2] says ${ids[2]! + 1}: two ids for one sampled token`,
    );
  });

  it('has ids that decode to another text, to less than the text, or to more than its last tokens past it', () => {
    const text = tokenizer.decode(ids);
    assert.match(
      problem(reply(ids, text.replace('two', 'three'))) ?? '',
      /^choices\[0\]\.text is not the text of choices\[0\]\.token_ids: they part at character 24; the ids decode to "the answer is four, as two and two make four", the text is "the answer is four, as three/,
    );
    assert.match(problem(reply(ids.slice(0, -1), text)) ?? '', /is not the text of/, 'ids cut short');
    assert.match(problem(reply([...ids, ...tokenizer.encode(' and then some more words')], text)) ?? '', /is not the text of/, 'ids run on');
    assert.match(problem(reply(ids, 'three', { textIs: 'within-decoded' })) ?? '', /the text is not in them/);
  });
});
