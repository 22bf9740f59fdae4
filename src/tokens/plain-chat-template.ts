import type { Message } from '../core/message.js';
import type { ChatTemplate, ChatTemplateOptions } from './chat-template.js';

/**
 * `role: content` lines and an `assistant: ` generation prompt. Small and predictable, for tests
 * and for tokenizers that ship no chat template.
 */
export class PlainChatTemplate implements ChatTemplate {
  render(messages: readonly Message[], options: ChatTemplateOptions): string {
    const lines = messages.map((message) => `${message.role}: ${message.content}\n`).join('');
    return options.addGenerationPrompt ? `${lines}assistant: ` : lines;
  }
}
