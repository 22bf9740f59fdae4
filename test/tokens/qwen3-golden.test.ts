import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenLedger, TemplateRenderer } from '../../src/tokens/index.js';
import { nemoRlGoldenPrompts } from '../support/nemo-rl-golden.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

describe('NeMo RL golden prompt ids (Qwen3 template + tokenizer)', () => {
  // Named here, not read from the fixture: a fixture with fewer rows would otherwise make fewer specs.
  for (const [row, length] of [
    [0, 3_080],
    [1, 3_048],
  ] as const) {
    it(`row ${row}: conversion + template + tokenizer give exactly NeMo RL's ${length.toLocaleString('en')} prompt ids`, async () => {
      const golden = nemoRlGoldenPrompts()[row]!;
      assert.equal(golden.ids.length, length);
      const tokenizer = await qwen3Tokenizer();
      const renderer = new TemplateRenderer(tokenizer, await qwen3Template());
      const { tokenIds } = renderer.renderDelta(new TokenLedger(tokenizer), [], golden.messages, { addGenerationPrompt: true, tools: golden.tools });
      assert.deepEqual(tokenIds.flat(), golden.ids);
    });
  }
});
