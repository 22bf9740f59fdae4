import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenAlignmentError, type Message } from '../../src/core/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer, type ChatTemplate } from '../../src/tokens/index.js';

const tokenizer = new CharTokenizer({ specialTokens: ['<|end|>'], stopTokens: ['<|end|>'] });
const renderer = new TemplateRenderer(tokenizer, new PlainChatTemplate());
const sampled = (text: string): Message => ({ role: 'assistant', content: text, token_ids: tokenizer.encode(text), generation_logprobs: tokenizer.encode(text).map(() => -1) });

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

describe('rendering observations as deltas', () => {
  it('renders the opening messages with a generation prompt on the last one only', () => {
    const ids = renderer.renderDelta([], [{ role: 'system', content: 's' }, { role: 'user', content: 'q' }], { addGenerationPrompt: true });
    assert.deepEqual(ids.map((part) => tokenizer.decode(part)), ['system: s\n', 'user: q\nassistant: ']);
  });

  it('appends after a sampled turn without touching its tokens', () => {
    const history = [{ role: 'user' as const, content: 'q', token_ids: tokenizer.encode('user: q\nassistant: ') }, sampled('42')];
    const [observation] = renderer.renderDelta(history, [{ role: 'environment', content: 'ok' }], { addGenerationPrompt: false });
    assert.equal(tokenizer.decode(observation!), '\nenvironment: ok\n');
  });

  it('reports a template that would rewrite earlier tokens as a TokenAlignmentError naming the spot', () => {
    // A template that drops earlier assistant text, as templates that strip <think> from history do.
    const forgetful: ChatTemplate = {
      render: (messages, options) =>
        messages.map((m) => `${m.role}: ${m.role === 'assistant' ? '…' : m.content}\n`).join('') + (options.addGenerationPrompt ? 'assistant: ' : ''),
    };
    const drifting = new TemplateRenderer(tokenizer, forgetful);
    const history = [{ role: 'user' as const, content: 'q', token_ids: tokenizer.encode('user: q\nassistant: ') }, sampled('42')];
    assert.throws(
      () => drifting.renderDelta(history, [{ role: 'environment', content: 'ok' }], { addGenerationPrompt: true }),
      (error: unknown) => error instanceof TokenAlignmentError && error.kind === 'token-alignment' && /character 19/.test(error.message),
    );
  });
});
