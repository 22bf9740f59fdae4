export type { Tokenizer } from './tokenizer.js';
export type { ChatTemplate, ChatTemplateOptions } from './chat-template.js';
export { CharTokenizer } from './char-tokenizer.js';
export { PlainChatTemplate } from './plain-chat-template.js';
export {
  TemplateRenderer,
  type ConversationRenderer,
  type RenderDeltaOptions,
  type RenderedDelta,
  type TokenDrift,
  type DriftMode,
} from './conversation-renderer.js';
export { TokenLedger, type TokenSegment } from './token-ledger.js';
export { HfTokenizer, loadHfTokenizer, type LoadHfTokenizerOptions } from './hf-tokenizer.js';
export { defaultCacheDirectory } from './tokenizer-cache.js';
export { TokenizerConfig, selectChatTemplate } from './tokenizer-config.js';
export { JinjaChatTemplate, type JinjaChatTemplateOptions } from './jinja-chat-template.js';
export {
  ResponsesItem,
  ResponsesTool,
  responsesInputToMessages,
  messagesToResponsesItems,
  responsesToolsToChatTools,
  chatToolsToResponsesTools,
} from '../core/responses-items.js';
