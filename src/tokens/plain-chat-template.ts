import type { Message } from '../core/message.js';
import type { ChatTemplate, ChatTemplateOptions } from './chat-template.js';

/**
 * `role: content` lines and an `assistant: ` generation prompt. Small and predictable, for tests
 * and for tokenizers that ship no chat template.
 */
export class PlainChatTemplate implements ChatTemplate {
  render(messages: readonly Message[], options: ChatTemplateOptions): string {
    // It reads no variables: accepting some would be ignoring them.
    const names = Object.keys(options.kwargs ?? {});
    if (names.length > 0) throw new Error(`the plain chat template reads no template variables, so it cannot honour ${names.join(', ')}`);
    const lines = messages.map((message) => `${message.role}: ${message.content}\n`).join('');
    return options.addGenerationPrompt ? `${lines}assistant: ` : lines;
  }
}
