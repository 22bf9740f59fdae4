import type { FinishReason } from '../core/finish-reason.js';

/** OpenAI-style finish reasons (vLLM, SGLang) → ours; the raw value is kept. */
export function mapOpenAiFinishReason(raw: string | null | undefined): FinishReason {
  const unified = raw === 'stop' || raw === 'tool_calls' || raw === 'eos' ? 'stop' : raw === 'length' ? 'length' : raw === 'abort' ? 'abort' : 'error';
  return { unified, raw: raw ?? 'null' };
}
