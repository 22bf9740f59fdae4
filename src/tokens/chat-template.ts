import type { Message } from '../core/message.js';

export interface ChatTemplateOptions {
  /** Append the text that opens the assistant's next turn. */
  addGenerationPrompt: boolean;
}

/** Messages → the text the model reads. Implementations: the plain template here, Jinja (next issue). */
export interface ChatTemplate {
  render(messages: readonly Message[], options: ChatTemplateOptions): string;
}
