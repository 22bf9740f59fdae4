import type { ChatTool } from '../core/chat-tool.js';
import type { Message } from '../core/message.js';

export interface ChatTemplateOptions {
  /** Append the text that opens the assistant's next turn. */
  addGenerationPrompt: boolean;
  /** Tools offered to the model, rendered where the template puts them. */
  tools?: readonly ChatTool[];
  /** Extra template variables for this render, like `enable_thinking` (vLLM's per-request `chat_template_kwargs`). */
  kwargs?: Readonly<Record<string, unknown>>;
}

/** Messages → the text the model reads. Implementations: `JinjaChatTemplate` (a model's own template), `PlainChatTemplate`. */
export interface ChatTemplate {
  render(messages: readonly Message[], options: ChatTemplateOptions): string;
}
