import { z } from 'zod';
import { defineResourcesServer } from '../define-resources-server.js';
import type { ResourcesServerDefinition } from '../resources-server-definition.js';
import { assistantText } from '../response-text.js';
import { collapseWhitespace, stripLatexTextWrappers } from './python-text.js';

export const McqaGradingMode = z.enum(['strict_single_letter_boxed', 'lenient_boxed', 'lenient_answer_colon']);
export type McqaGradingMode = z.infer<typeof McqaGradingMode>;

/** Options as the dataset has them: one single-key object per option, `[{"A": "…"}, {"B": "…"}]`. */
type Options = readonly Record<string, string>[];

/** NeMo Gym's `MCQARunRequest`: only the top-level `options` and `expected_answer` grade; `metadata` is carried. */
const Row = z.object({
  uuid: z.string().nullable().default(null),
  options: z.array(z.record(z.string(), z.string())).nullable().default(null),
  expected_answer: z.string().nullable().default(null),
  metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  grading_mode: McqaGradingMode.default('strict_single_letter_boxed'),
  template_metadata: z.record(z.string(), z.unknown()).nullable().default(null),
});

/** The letters options may be answered with: each option's first key, when it is one letter. */
function allowedLetters(options: Options | null): Set<string> {
  const letters = new Set<string>();
  for (const entry of options ?? []) {
    const [key] = Object.keys(entry);
    if (key !== undefined && /^\p{L}$/u.test(key)) letters.add(key.toUpperCase());
  }
  return letters;
}

/** One uppercase letter in the first `\boxed{…}`, with nothing but non-letters beside it. */
function strictBoxedLetter(text: string, allowed: Set<string>): string | undefined {
  const letter = /\\boxed\{\s*[^A-Za-z]*([A-Z])[^A-Za-z]*\s*\}/.exec(text)?.[1];
  return letter !== undefined && allowed.has(letter) ? letter : undefined;
}

const normalize = (text: string) => collapseWhitespace(text.toLowerCase());

/** The one option whose text is inside the first box (as written, or `\text{}` peeled); none if two match. */
function boxedOptionText(text: string, options: Options | null, allowed: Set<string>): string | undefined {
  const boxed = /\\boxed\{\s*([\s\S]*?)\s*\}/.exec(text);
  if (!boxed) return undefined;
  const candidates = [boxed[1]!, stripLatexTextWrappers(boxed[1]!)].map(normalize);
  const matched = new Set<string>();
  for (const entry of options ?? []) {
    const key = Object.keys(entry).find((name) => name.length === 1 && allowed.has(name.toUpperCase()));
    if (key === undefined) continue;
    const option = normalize(entry[key]!);
    if (option && candidates.some((candidate) => candidate.includes(option))) matched.add(key.toUpperCase());
  }
  return matched.size === 1 ? [...matched][0] : undefined;
}

/** The option whose text equals the candidate (normalised), its letter. */
function optionWithText(candidate: string, options: Options | null, allowed: Set<string>): string | undefined {
  const wanted = normalize(candidate);
  for (const entry of options ?? []) {
    for (const [key, value] of Object.entries(entry)) {
      if (allowed.has(key.toUpperCase()) && normalize(value) === wanted) return key.toUpperCase();
    }
  }
  return undefined;
}

/** `Answer: X` (a letter, or an option's text). */
function answerColon(text: string, options: Options | null, allowed: Set<string>): string | undefined {
  const match = /answer\s*:\s*([^\n]+)/i.exec(text);
  if (!match) return undefined;
  const candidate = stripLatexTextWrappers(match[1]!).trim();
  if (/^\p{L}$/u.test(candidate) && allowed.has(candidate.toUpperCase())) return candidate.toUpperCase();
  return optionWithText(candidate, options, allowed);
}

/**
 * A row's own `template_metadata.output_regex`, case-insensitive, last match: a single letter is
 * trusted even outside the options (NeMo Gym trusts the template), else an option's text. A pattern
 * that is not a valid regular expression extracts nothing.
 */
function templateRegexAnswer(text: string, pattern: string, options: Options | null, allowed: Set<string>): string | undefined {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'gi');
  } catch {
    return undefined;
  }
  const last = [...text.matchAll(regex)].at(-1);
  if (!last) return undefined;
  // Python's findall gives the group when there is one, else the whole match.
  const captured = (last.length > 1 ? last[1] ?? '' : last[0]).trim().toUpperCase();
  if (/^\p{L}$/u.test(captured)) return captured;
  return optionWithText(captured, options, allowed);
}

function extractLetter(text: string, body: z.infer<typeof Row>, allowed: Set<string>): string | undefined {
  const pattern = body.template_metadata?.output_regex;
  const fromTemplate = typeof pattern === 'string' ? templateRegexAnswer(text, pattern, body.options, allowed) : undefined;
  if (fromTemplate !== undefined) return fromTemplate;
  switch (body.grading_mode) {
    case 'strict_single_letter_boxed':
      return strictBoxedLetter(text, allowed);
    case 'lenient_boxed':
      return strictBoxedLetter(text, allowed) ?? boxedOptionText(text, body.options, allowed);
    case 'lenient_answer_colon':
      return answerColon(text, body.options, allowed);
  }
}

/**
 * NeMo Gym's `mcqa`: the answer letter from the row's template regex if it has one, else by
 * `grading_mode` (a boxed letter; or, leniently, a boxed option text or `Answer: …`), against the
 * letters of `options`; reward 1 when it is `expected_answer`. The reply carries `expected_answer`
 * trimmed and upper-cased, and `extracted_answer` (null when none).
 */
export function mcqa(): ResourcesServerDefinition {
  return defineResourcesServer<undefined, z.infer<typeof Row>>({
    name: 'mcqa',
    className: 'MCQAResourcesServer',
    rowSchema: Row,
    verify: (body) => {
      const extracted = extractLetter(assistantText(body.response), body, allowedLetters(body.options)) ?? null;
      const gold = (body.expected_answer ?? '').trim().toUpperCase();
      return { reward: extracted !== null && gold !== '' && extracted === gold ? 1 : 0, expected_answer: gold, extracted_answer: extracted };
    },
  });
}
