import type { ChatTool } from '../core/chat-tool.js';
import { TokenAlignmentError } from '../core/errors/token-alignment-error.js';
import type { Message } from '../core/message.js';
import type { ChatTemplate } from './chat-template.js';
import type { TokenLedger } from './token-ledger.js';
import type { Tokenizer } from './tokenizer.js';

export interface RenderDeltaOptions {
  /** End the last message's tokens with the generation prompt (the episode goes on). */
  addGenerationPrompt: boolean;
  tools?: readonly ChatTool[];
}

/** The template would render the history differently from the tokens on the ledger. */
export interface TokenDrift {
  /** Where the two first differ, in characters of the decoded sequence. */
  at: number;
  /** What the ledger holds there and what the template would put there. */
  ledger: string;
  template: string;
}

export interface RenderedDelta {
  /** Tokens for each added message, in order; they go after the ledger's tokens, which never change. */
  tokenIds: number[][];
  /** Set when the template disagrees with the ledger (only in `warn` mode; `strict` throws). */
  drift?: TokenDrift;
}

/** Turns non-assistant messages into tokens appended after what the episode already holds. */
export interface ConversationRenderer {
  readonly tokenizer: Tokenizer;
  renderDelta(ledger: TokenLedger, history: readonly Message[], added: readonly Message[], options: RenderDeltaOptions): RenderedDelta;
}

/**
 * `strict`: a drift fails the episode with `TokenAlignmentError`.
 * `warn` (default): the drift is recorded and the episode goes on. The sequence stays exact either way,
 * since sampled tokens are never replaced; a drift only means a fresh render of the conversation would differ.
 */
export type DriftMode = 'strict' | 'warn';

/**
 * Renders added messages as the text the chat template adds after the history, then encodes it.
 * The template's history and the ledger are compared first:
 * - the ledger is a prefix of the template's history (the usual case: the model stopped on `<|im_end|>`
 *   and the template adds `\n`, or stopped on a stop string and the template closes the turn): the
 *   missing text is bridged with tokens the model never sampled (loss mask 0);
 * - otherwise (templates that strip earlier `<think>`, text the template normalizes) it is a drift.
 */
export class TemplateRenderer implements ConversationRenderer {
  readonly tokenizer: Tokenizer;
  readonly #template: ChatTemplate;
  readonly #mode: DriftMode;

  constructor(tokenizer: Tokenizer, template: ChatTemplate, options: { drift?: DriftMode } = {}) {
    this.tokenizer = tokenizer;
    this.#template = template;
    this.#mode = options.drift ?? 'warn';
  }

  renderDelta(ledger: TokenLedger, history: readonly Message[], added: readonly Message[], options: RenderDeltaOptions): RenderedDelta {
    const tools = options.tools;
    const templateHistory = history.length === 0 ? '' : this.#template.render(history, { addGenerationPrompt: false, ...(tools ? { tools } : {}) });
    const { bridge, drift } = this.#bridge(ledger.text, templateHistory, history);
    let rendered = templateHistory;
    const messages = [...history];
    const tokenIds = added.map((message, i) => {
      messages.push(message);
      const addGenerationPrompt = i === added.length - 1 && options.addGenerationPrompt;
      const next = this.#template.render(messages, { addGenerationPrompt, ...(tools ? { tools } : {}) });
      if (!next.startsWith(rendered)) {
        // Adding a message made the template rewrite the earlier ones; render the new text after the old.
        return this.tokenizer.encode((i === 0 ? bridge : '') + next.slice(commonPrefixLength(rendered, next)));
      }
      const delta = next.slice(rendered.length);
      rendered = next;
      return this.tokenizer.encode((i === 0 ? bridge : '') + delta);
    });
    return drift ? { tokenIds, drift } : { tokenIds };
  }

  #bridge(ledgerText: string, templateHistory: string, history: readonly Message[]): { bridge: string; drift?: TokenDrift } {
    if (templateHistory.startsWith(ledgerText)) return { bridge: templateHistory.slice(ledgerText.length) };
    const at = commonPrefixLength(ledgerText, templateHistory);
    const drift = { at, ledger: ledgerText.slice(at, at + 40), template: templateHistory.slice(at, at + 40) };
    if (this.#mode === 'strict') {
      throw new TokenAlignmentError(
        `the chat template would change tokens already on the sequence at character ${at}: the sequence has ${JSON.stringify(drift.ledger)}, the template gives ${JSON.stringify(drift.template)}`,
      );
    }
    return { bridge: closingAfterLastTurn(templateHistory, history), drift };
  }
}

/** What the template writes after the last message's content (e.g. `<|im_end|>\n`), to close it on the sequence. */
function closingAfterLastTurn(templateHistory: string, history: readonly Message[]): string {
  const content = history.at(-1)?.content ?? '';
  const index = content === '' ? -1 : templateHistory.lastIndexOf(content);
  return index < 0 ? '' : templateHistory.slice(index + content.length);
}

function commonPrefixLength(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
