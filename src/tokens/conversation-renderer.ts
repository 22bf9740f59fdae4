import { TokenAlignmentError } from '../core/errors/token-alignment-error.js';
import type { Message } from '../core/message.js';
import type { ChatTemplate } from './chat-template.js';
import type { Tokenizer } from './tokenizer.js';

export interface RenderDeltaOptions {
  /** End the last message's tokens with the generation prompt (the episode goes on). */
  addGenerationPrompt: boolean;
}

/** Turns non-assistant messages into tokens appended after what the episode already holds. */
export interface ConversationRenderer {
  /**
   * Token ids for `added`, one array per message, appended after `history` (whose tokens never change).
   * Throws `TokenAlignmentError` when the template would rewrite text already in the sequence.
   */
  renderDelta(history: readonly Message[], added: readonly Message[], options: RenderDeltaOptions): number[][];
}

/**
 * Renders each added message as the text the chat template adds after the sequence so far.
 * The sequence so far is read from the tokens themselves (decoded), never from message text,
 * so a sampled turn is compared exactly as it was sampled.
 */
export class TemplateRenderer implements ConversationRenderer {
  readonly #tokenizer: Tokenizer;
  readonly #template: ChatTemplate;

  constructor(tokenizer: Tokenizer, template: ChatTemplate) {
    this.#tokenizer = tokenizer;
    this.#template = template;
  }

  renderDelta(history: readonly Message[], added: readonly Message[], options: RenderDeltaOptions): number[][] {
    let sequenceText = this.#tokenizer.decode(history.flatMap((message) => message.token_ids ?? []));
    const messages = [...history];
    return added.map((message, i) => {
      messages.push(message);
      const isLast = i === added.length - 1;
      const rendered = this.#template.render(messages, { addGenerationPrompt: isLast && options.addGenerationPrompt });
      if (!rendered.startsWith(sequenceText)) {
        throw new TokenAlignmentError(
          `rendering a ${message.role} message would change ${describeDivergence(sequenceText, rendered)}`,
        );
      }
      const delta = rendered.slice(sequenceText.length);
      sequenceText = rendered;
      return this.#tokenizer.encode(delta);
    });
  }
}

function describeDivergence(before: string, after: string): string {
  let i = 0;
  while (i < before.length && before[i] === after[i]) i++;
  return `the sequence at character ${i}: had ${JSON.stringify(before.slice(i, i + 20))}, template gives ${JSON.stringify(after.slice(i, i + 20))}`;
}
