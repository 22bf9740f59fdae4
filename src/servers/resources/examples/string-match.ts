import { z } from 'zod';
import { defineResourcesServer } from '../define-resources-server.js';
import type { ResourcesServerDefinition } from '../resources-server-definition.js';
import { assistantText } from '../response-text.js';
import { splitLines, stripLatexTextWrappers } from './python-text.js';
import { gradeStringMatch } from './string-match-grade.js';

export const StringMatchExtractionMode = z.enum(['boxed', 'final_answer', 'last_line', 'full_response']);
export type StringMatchExtractionMode = z.infer<typeof StringMatchExtractionMode>;

/** NeMo Gym's `StringMatchRunRequest`, with its defaults. */
const Row = z.object({
  expected_answer: z.string(),
  extraction_mode: StringMatchExtractionMode.default('final_answer'),
  case_sensitive: z.boolean().default(false),
  metadata: z.record(z.string(), z.unknown()).nullable().default(null),
});

/** The content of the last `\boxed{…}` whose braces close, `\text{…}` wrappers peeled. */
export function extractBoxed(text: string): string | undefined {
  const starts = [...text.matchAll(/\\boxed\{/g)].map((match) => match.index + match[0].length);
  for (const start of starts.reverse()) {
    let depth = 1;
    for (let index = start; index < text.length; index += 1) {
      if (text[index] === '{') depth += 1;
      else if (text[index] === '}') depth -= 1;
      if (depth === 0) return stripLatexTextWrappers(text.slice(start, index).trim()).trim();
    }
  }
  return undefined;
}

// `(?i)(?:final\s+answer|answer)\s*[:：]\s*(.+)`; Python's `.` stops only at \n.
const FINAL_ANSWER = /(?:final\s+answer|answer)\s*[:：]\s*([^\n]+)/gi;

/** The last `Final answer: …` / `Answer: …` value, its closing full stop dropped. */
function extractFinalAnswer(text: string): string | undefined {
  const last = [...text.matchAll(FINAL_ANSWER)].at(-1);
  if (!last) return undefined;
  return last[1]!
    .trim()
    .split(/\.\s*$/)[0]!
    .trim()
    .replace(/\.+$/, '');
}

function extractLastLine(text: string): string | undefined {
  return splitLines(text)
    .map((line) => line.trim())
    .findLast((line) => line !== '');
}

/** NeMo Gym's `_extract_answer`: `final_answer` falls back to the last box. */
export function extractStringMatchAnswer(text: string, mode: StringMatchExtractionMode): string | undefined {
  switch (mode) {
    case 'boxed':
      return extractBoxed(text);
    case 'final_answer':
      return extractFinalAnswer(text) ?? extractBoxed(text);
    case 'last_line':
      return extractLastLine(text);
    case 'full_response':
      return text.trim() || undefined;
  }
}

/** Case-sensitive is exact after trimming; otherwise NeMo Gym's normalising grade (which may give 0.98). */
export function stringMatchReward(extracted: string, expected: string, caseSensitive: boolean): number {
  if (caseSensitive) return extracted.trim() === expected.trim() ? 1 : 0;
  return gradeStringMatch(expected, extracted);
}

/**
 * NeMo Gym's `string_match`: extracts an answer from the assistant's text by `extraction_mode` and
 * compares it with `expected_answer`; the reply says what it extracted (`extracted_answer`, null when
 * nothing was found, which scores 0).
 */
export function stringMatch(): ResourcesServerDefinition {
  return defineResourcesServer<undefined, z.infer<typeof Row>>({
    name: 'string_match',
    className: 'StringMatchResourcesServer',
    rowSchema: Row,
    verify: (body) => {
      const extracted = extractStringMatchAnswer(assistantText(body.response), body.extraction_mode);
      const reward = extracted !== undefined && body.expected_answer ? stringMatchReward(extracted, body.expected_answer, body.case_sensitive) : 0;
      return { reward, expected_answer: body.expected_answer, extracted_answer: extracted ?? null };
    },
  });
}
