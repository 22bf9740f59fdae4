export type { Tokenizer } from './tokenizer.js';
export type { ChatTemplate, ChatTemplateOptions } from './chat-template.js';
export { CharTokenizer } from './char-tokenizer.js';
export { PlainChatTemplate } from './plain-chat-template.js';
export { TemplateRenderer, type ConversationRenderer, type RenderDeltaOptions } from './conversation-renderer.js';
