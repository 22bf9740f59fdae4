import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GymnastError, TokenAlignmentError, type Message } from '../../src/core/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer, TokenLedger, type ChatTemplate } from '../../src/tokens/index.js';

const tokenizer = new CharTokenizer({ specialTokens: ['<|end|>'], stopTokens: ['<|end|>'] });
const renderer = new TemplateRenderer(tokenizer, new PlainChatTemplate());
const sampled = (text: string): Message => ({
  role: 'assistant',
  content: text,
  token_ids: tokenizer.encode(text),
  generation_logprobs: tokenizer.encode(text).map(() => -1),
});

/** A log and its ledger after one sampled turn: "user: q\nassistant: <answer>". */
function afterOneTurn(answer = '42'): { history: Message[]; ledger: TokenLedger } {
  const history: Message[] = [{ role: 'user', content: 'q', token_ids: tokenizer.encode('user: q\nassistant: ') }, sampled(answer)];
  return { history, ledger: TokenLedger.fromMessages(tokenizer, history) };
}

describe('the char tokenizer', () => {
  it('round-trips text, matching special tokens whole', () => {
    const ids = tokenizer.encode('hi<|end|>');
    assert.equal(ids.length, 3);
    assert.equal(tokenizer.decode(ids), 'hi<|end|>');
    assert.deepEqual(tokenizer.stopTokenIds, [ids[2]]);
  });

  it('maps unknown characters to <unk>, which decodes visibly', () => {
    assert.equal(tokenizer.decode(tokenizer.encode('é')), '\uFFFD');
  });
});

describe('a template that refuses the conversation', () => {
  it('fails that episode with a TemplateError (kind template), not the run', () => {
    const refusing: ChatTemplate = {
      render: () => {
        throw new Error('Conversation roles must alternate user/assistant/user/assistant/...');
      },
    };
    assert.throws(
      () =>
        new TemplateRenderer(tokenizer, refusing).renderDelta(new TokenLedger(tokenizer), [], [{ role: 'user', content: 'q' }], { addGenerationPrompt: true }),
      (error: unknown) => GymnastError.isInstance(error) && error.kind === 'template' && /roles must alternate/.test(error.message),
    );
  });
});

describe('rendering openings', () => {
  it('gives a repeated opening the ids its first rendering gave, in arrays no caller can change; another generation prompt or other messages are another opening', () => {
    const cached = new TemplateRenderer(tokenizer, new PlainChatTemplate());
    const fresh = () => new TemplateRenderer(tokenizer, new PlainChatTemplate());
    const render = (on: TemplateRenderer, opening: Message[], addGenerationPrompt: boolean) =>
      on.renderDelta(new TokenLedger(tokenizer), [], opening, { addGenerationPrompt }).tokenIds;
    const opening: Message[] = [{ role: 'user', content: 'q' }];
    for (let call = 0; call < 2; call++) assert.throws(() => render(cached, opening, true)[0]!.push(999), TypeError);
    assert.deepEqual(render(cached, opening, true), render(fresh(), opening, true));
    assert.deepEqual(render(cached, opening, false), render(fresh(), opening, false));
    assert.notDeepEqual(render(cached, opening, false), render(cached, opening, true));
    assert.deepEqual(render(cached, [{ role: 'user', content: 'other' }], true), render(fresh(), [{ role: 'user', content: 'other' }], true));
  });
});

describe('the token ledger', () => {
  it('masks only sampled tokens for the loss, and carries their logprobs', () => {
    const { ledger } = afterOneTurn();
    assert.equal(ledger.text, 'user: q\nassistant: 42');
    assert.deepEqual(ledger.lossMask().slice(-3), [0, 1, 1]);
    assert.deepEqual(ledger.logprobs().slice(-3), [0, -1, -1]);
    assert.equal(ledger.tokenIds().length, ledger.length);
  });
});

describe('rendering observations as deltas', () => {
  it('renders the opening messages with a generation prompt on the last one only', () => {
    const { tokenIds } = renderer.renderDelta(
      new TokenLedger(tokenizer),
      [],
      [
        { role: 'system', content: 's' },
        { role: 'user', content: 'q' },
      ],
      { addGenerationPrompt: true },
    );
    assert.deepEqual(
      tokenIds.map((part) => tokenizer.decode(part)),
      ['system: s\n', 'user: q\nassistant: '],
    );
  });

  it('appends after a sampled turn without touching its tokens, bridging what the template adds after it', () => {
    const { history, ledger } = afterOneTurn();
    const { tokenIds, drift } = renderer.renderDelta(ledger, history, [{ role: 'environment', content: 'ok' }], { addGenerationPrompt: false });
    assert.equal(tokenizer.decode(tokenIds[0]!), '\nenvironment: ok\n');
    assert.equal(drift, undefined);
  });

  // A template that strips <think> blocks from earlier assistant turns, as Qwen3's does.
  const forgetful: ChatTemplate = {
    render: (messages, options) =>
      messages.map((m) => `${m.role}: ${m.role === 'assistant' ? m.content.replace(/<think>.*<\/think>/, '') : m.content}\n`).join('') +
      (options.addGenerationPrompt ? 'assistant: ' : ''),
  };

  it('in strict mode, fails on a template that would rewrite earlier tokens, naming the spot', () => {
    const { history, ledger } = afterOneTurn('<think>hm</think>42');
    const strict = new TemplateRenderer(tokenizer, forgetful, { drift: 'strict' });
    assert.throws(
      () => strict.renderDelta(ledger, history, [{ role: 'environment', content: 'ok' }], { addGenerationPrompt: true }),
      (error: unknown) => error instanceof TokenAlignmentError && error.kind === 'token-alignment' && /character 19/.test(error.message),
    );
  });

  it('in warn mode, continues after the sampled turn even when the observation quotes the answer', () => {
    const { history, ledger } = afterOneTurn('<think>hm</think>42');
    const warn = new TemplateRenderer(tokenizer, forgetful, { drift: 'warn' });
    const { tokenIds } = warn.renderDelta(ledger, history, [{ role: 'environment', content: 'your answer 42 is wrong' }], { addGenerationPrompt: true });
    assert.equal(tokenizer.decode(tokenIds[0]!), '\nenvironment: your answer 42 is wrong\nassistant: ');
  });

  it('in warn mode, reports the drift and goes on after the sampled tokens', () => {
    const { history, ledger } = afterOneTurn('<think>hm</think>42');
    const warn = new TemplateRenderer(tokenizer, forgetful, { drift: 'warn' });
    const { tokenIds, drift } = warn.renderDelta(ledger, history, [{ role: 'environment', content: 'ok' }], { addGenerationPrompt: true });
    assert.deepEqual(drift, { source: 'template', at: 19, ledger: '<think>hm</think>42', template: '42\nenvironment: ok\nassistant: ' });
    assert.equal(tokenizer.decode(tokenIds[0]!), '\nenvironment: ok\nassistant: ');
  });
});
