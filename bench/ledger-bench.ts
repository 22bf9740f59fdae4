import type { Message } from '../src/core/index.js';
import { JinjaChatTemplate, loadHfTokenizer, TemplateRenderer, TokenLedger } from '../src/tokens/index.js';
import { qwen3Directory } from '../test/support/qwen3.js';
import type { BenchResult } from './bench-result.js';

/**
 * Ledger throughput on the real Qwen3 tokenizer: 40 episodes of 8 turns, each observation rendered as a
 * delta against the whole conversation, against encoding the same final texts in one call each.
 */
export async function ledgerThroughput(): Promise<BenchResult> {
  const tokenizer = await loadHfTokenizer(qwen3Directory);
  const renderer = new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config));
  const paragraph = 'The environment reports the state of the board, the moves so far and the reward. '.repeat(4);
  let tokens = 0;
  const finalTexts: string[] = [];
  const started = performance.now();
  for (let episode = 0; episode < 40; episode++) {
    const ledger = new TokenLedger(tokenizer);
    const messages: Message[] = [];
    const append = (added: Message[]) => {
      const { tokenIds } = renderer.renderDelta(ledger, messages, added, { addGenerationPrompt: true });
      added.forEach((message, i) => {
        const withTokens = { ...message, token_ids: tokenIds[i]! };
        messages.push(withTokens);
        ledger.appendMessage(withTokens);
      });
    };
    append([{ role: 'user', content: `Episode ${episode}. ${paragraph}` }]);
    for (let turn = 0; turn < 8; turn++) {
      const ids = [...tokenizer.encode(`Move ${turn}: I slide the tile up.`), 151645];
      const sampled: Message = { role: 'assistant', content: tokenizer.decode(ids.slice(0, -1)), token_ids: ids, generation_logprobs: ids.map(() => -0.1) };
      messages.push(sampled);
      ledger.appendMessage(sampled);
      append([{ role: 'environment', content: `Turn ${turn}. ${paragraph}` }]);
    }
    tokens += ledger.length;
    finalTexts.push(ledger.text);
  }
  const ledgerSeconds = (performance.now() - started) / 1000;
  const encodeStarted = performance.now();
  for (const text of finalTexts) tokenizer.encode(text);
  const encodeSeconds = (performance.now() - encodeStarted) / 1000;
  return {
    name: 'token ledger: tokens/s through delta rendering (Qwen3 template + tokenizer)',
    baseline: { label: 'one encode of the final text', value: tokens / encodeSeconds, unit: 'tok/s' },
    measured: { label: 'ledger, turn by turn', value: tokens / ledgerSeconds, unit: 'tok/s' },
    lowerIsBetter: false,
  };
}
