import type { FinishReason } from '../core/finish-reason.js';

const known = new Map<string, FinishReason['unified']>([
  ['stop', 'stop'],
  ['tool_calls', 'stop'],
  ['eos', 'stop'],
  ['length', 'length'],
  ['abort', 'abort'],
  ['error', 'error'],
]);

/**
 * OpenAI-style finish reasons (vLLM, SGLang) → ours; the raw value is kept. A reason we do not know
 * (`content_filter`, whatever a server adds next) is `other`; no reason at all breaks the protocol: `error`.
 */
export function mapOpenAiFinishReason(raw: string | null | undefined): FinishReason {
  if (raw === null || raw === undefined) return { unified: 'error', raw: 'null' };
  return { unified: known.get(raw) ?? 'other', raw };
}
