import { z } from 'zod';

const ContentPart = z.looseObject({ type: z.string().optional(), text: z.unknown().optional() });
const OutputItem = z.looseObject({ type: z.string().optional(), role: z.string().optional(), content: z.unknown().optional() });
/** The part of a Responses-API response (NeMo Gym's `NeMoGymResponse`) verifiers read. */
export const VerifiedResponse = z.looseObject({ output: z.array(OutputItem).default([]) });
export type VerifiedResponse = z.infer<typeof VerifiedResponse>;

function messageTexts(response: unknown, onlyAssistant: boolean): string[] {
  const parsed = VerifiedResponse.safeParse(response);
  if (!parsed.success) return [];
  const texts: string[] = [];
  for (const item of parsed.data.output) {
    if (item.type !== 'message' || (onlyAssistant && item.role !== 'assistant')) continue;
    if (typeof item.content === 'string') texts.push(item.content);
    else if (Array.isArray(item.content)) {
      for (const part of item.content) {
        const read = ContentPart.safeParse(part);
        if (read.success && typeof read.data.text === 'string' && (onlyAssistant || read.data.type === 'output_text')) texts.push(read.data.text);
      }
    }
  }
  return texts;
}

/**
 * The assistant's text in a response, as NeMo Gym's verifiers read it (`_extract_last_assistant_text`
 * in string_match and mcqa): every assistant message's text parts joined by newlines, trimmed.
 */
export function assistantText(response: unknown): string {
  return messageTexts(response, true).join('\n').trim();
}

/**
 * The OpenAI SDK's `Response.output_text`, which mcqa reads: every message's `output_text` parts joined
 * with nothing. A message whose content is a string has no parts (the SDK would fail on it).
 */
export function outputText(response: unknown): string {
  const parsed = VerifiedResponse.safeParse(response);
  if (!parsed.success) return '';
  return parsed.data.output
    .filter((item) => item.type === 'message' && Array.isArray(item.content))
    .flatMap((item) => (item.content as unknown[]).map((part) => ContentPart.safeParse(part)))
    .flatMap((part) => (part.success && part.data.type === 'output_text' && typeof part.data.text === 'string' ? [part.data.text] : []))
    .join('');
}

/** Every message's `output_text`, joined with nothing: NeMo Gym's gymnasium `extract_text`, an action. */
export function actionText(response: unknown): string {
  return messageTexts(response, false).join('');
}
