import { z } from 'zod';
import { collapseWhitespace, pythonStrip, stripLatexTextWrappers } from './python-text.js';

/** How a row asks to be graded; `lenient_answer_colon_md` is only a server setting, as in NeMo Gym. */
export const McqaGradingMode = z.enum(['strict_single_letter_boxed', 'lenient_boxed', 'lenient_answer_colon']);
export type McqaGradingMode = z.infer<typeof McqaGradingMode>;
export const McqaServerGradingMode = z.enum([...McqaGradingMode.options, 'lenient_answer_colon_md']);
export type McqaServerGradingMode = z.infer<typeof McqaServerGradingMode>;

/** Options as the dataset has them: single-key objects, `[{"A": "…"}, {"B": "…"}]`; a null text is no option. */
export type McqaOptions = readonly Readonly<Record<string, string | null>>[];

export interface McqaQuestion {
  options: McqaOptions | null;
  /** The row's `template_metadata.output_regex`: one pattern, or several tried in order. */
  outputRegex: string | readonly string[] | undefined;
  gradingMode: McqaServerGradingMode;
}

// Python's `\w` is Unicode-aware and JavaScript's `\b` is not, so the word boundaries are spelled out.
const WORD = String.raw`[\p{L}\p{N}_]`;
const BOXED_LETTER_ONLY = /^[^A-Za-z]*([A-Z])[^A-Za-z]*$/;
// ":" and ")" are unambiguous; NeMo Gym also takes "." and "-", so "\boxed{E. coli}" reads as E.
const BOXED_LETTER_LABEL = /^\s*([A-Z])\s*[:).-]/;
const ANSWER_COLON = /answer\s*:\s*([^\n]+)/i;
const ANSWER_COLON_PAYLOADS = /[*_]{0,2}Answer[*_]{0,2}\s*:[*_\s]{0,2}([^\n]+)/gim;
const CHOICE_LETTER = /(?<![A-Za-z])([A-Za-z])(?![A-Za-z])/g;
const LEADING_CHOICE_LETTER = /^([a-zA-Z])(?![a-zA-Z0-9])/;
const LAST_STANDALONE_CHOICE_LETTER = new RegExp(`(?<!${WORD})[A-Z](?!${WORD})(?![\\s\\S]*(?<!${WORD})[A-Z](?!${WORD}))`, 'u');
const CHOICE_LIST_SEPARATOR = /^(?:\s*[/|&,;]\s*|\s+(?:or|and)\s+|\s+)$/i;
const LOCALISED_LETTERS: readonly [string, string][] = [
  ['أ', ' A'],
  ['ب', ' B'],
  ['ج', ' C'],
  ['د', ' D'],
  ['অ', ' A'],
  ['ব', ' B'],
  ['ড', ' C'],
  ['ঢ', ' D'],
  ['Ａ', ' A'],
  ['Ｂ', ' B'],
  ['Ｃ', ' C'],
  ['Ｄ', ' D'],
];

/** The letters options may be answered with: every single-letter key whose text is not null. */
export function allowedLetters(options: McqaOptions | null): Set<string> {
  const letters = new Set<string>();
  for (const entry of options ?? []) {
    for (const [key, value] of Object.entries(entry)) if (value !== null && /^\p{L}$/u.test(key)) letters.add(key.toUpperCase());
  }
  return letters;
}

/** Arabic, Bengali and full-width answer letters read as A–D (MMMLU-style templates). */
function normalizeLocalisedLetters(text: string): string {
  for (const [from, to] of LOCALISED_LETTERS) text = text.replaceAll(from, to);
  return pythonStrip(text);
}

const normalize = (text: string) => collapseWhitespace(text.toLowerCase());

/**
 * Everything inside the LAST `\boxed{`, braces counted so `\boxed{\text{E}}` keeps its wrapper whole:
 * a chain of thought may box a discarded candidate first. Undefined when there is none or it never closes.
 */
export function lastBoxedContent(text: string): string | undefined {
  const marker = '\\boxed{';
  const start = text.lastIndexOf(marker);
  if (start === -1) return undefined;
  let depth = 1;
  for (let index = start + marker.length; index < text.length; index += 1) {
    if (text[index] === '{') depth += 1;
    else if (text[index] === '}' && --depth === 0) return text.slice(start + marker.length, index);
  }
  return undefined;
}

/** The letter in the last box: alone (`E`, `[C]`, `\text{E}`), or leading its option text (`E: …`, `C) …`). */
function strictBoxedLetter(text: string, allowed: Set<string>): string | undefined {
  const inner = lastBoxedContent(text);
  if (inner === undefined) return undefined;
  const unwrapped = stripLatexTextWrappers(pythonStrip(inner));
  const letter = (BOXED_LETTER_ONLY.exec(unwrapped) ?? BOXED_LETTER_LABEL.exec(unwrapped))?.[1];
  return letter !== undefined && allowed.has(letter) ? letter : undefined;
}

/** Every (letter, text) of the options whose key is an allowed letter and whose text is not null. */
function optionTexts(options: McqaOptions | null, allowed: Set<string>): [string, string][] {
  return (options ?? []).flatMap((entry) =>
    Object.entries(entry).flatMap(([key, value]): [string, string][] =>
      value !== null && [...key].length === 1 && allowed.has(key.toUpperCase()) ? [[key.toUpperCase(), value]] : [],
    ),
  );
}

/** The one option whose text is inside the last box (as written, or `\text{}` peeled); none if two match. */
function boxedOptionText(text: string, options: McqaOptions | null, allowed: Set<string>): string | undefined {
  const inner = lastBoxedContent(text);
  if (inner === undefined) return undefined;
  const stripped = pythonStrip(inner);
  const candidates = [stripped, stripLatexTextWrappers(stripped)].map(normalize);
  const matched = new Set(
    optionTexts(options, allowed)
      .filter(([, option]) => normalize(option) !== '' && candidates.some((candidate) => candidate.includes(normalize(option))))
      .map(([letter]) => letter),
  );
  return matched.size === 1 ? [...matched][0] : undefined;
}

/** The option whose text equals the candidate (normalised), its letter. */
function optionWithText(candidate: string, options: McqaOptions | null, allowed: Set<string>): string | undefined {
  const wanted = normalize(candidate);
  return optionTexts(options, allowed).find(([, option]) => normalize(option) === wanted)?.[0];
}

/** The first `Answer: X` (a letter, or an option's text). */
function answerColon(text: string, options: McqaOptions | null, allowed: Set<string>): string | undefined {
  const match = ANSWER_COLON.exec(text);
  if (!match) return undefined;
  const candidate = pythonStrip(stripLatexTextWrappers(match[1]!));
  if (/^\p{L}$/u.test(candidate) && allowed.has(candidate.toUpperCase())) return candidate.toUpperCase();
  return optionWithText(candidate, options, allowed);
}

/** Two different allowed letters side by side as a list (`A/B`, `A or B`, `A, B`): no single answer. */
function isAmbiguousChoiceList(text: string, allowed: Set<string>): boolean {
  const letters = [...text.matchAll(CHOICE_LETTER)].filter((match) => allowed.has(match[1]!.toUpperCase()));
  return letters.slice(1).some((right, index) => {
    const left = letters[index]!;
    return left[1]!.toUpperCase() !== right[1]!.toUpperCase() && CHOICE_LIST_SEPARATOR.test(text.slice(left.index + 1, right.index));
  });
}

/** One allowed letter from an `Answer:` payload: the whole payload, its leading letter, or its last standalone capital. */
function choiceLetter(payload: string, allowed: Set<string>): string | undefined {
  const candidate = pythonStrip(normalizeLocalisedLetters(payload), '*_` \t\n\r.,;:');
  if (isAmbiguousChoiceList(candidate, allowed)) return undefined;
  const letter = [...candidate].length === 1 ? candidate : (LEADING_CHOICE_LETTER.exec(candidate)?.[1] ?? LAST_STANDALONE_CHOICE_LETTER.exec(candidate)?.[0]);
  return letter !== undefined && allowed.has(letter.toUpperCase()) ? letter.toUpperCase() : undefined;
}

/** Markdown-aware `Answer:` (`**Answer: C**`, `__Answer__: A`): the last payload that gives one letter. */
function answerColonMarkdown(text: string, allowed: Set<string>): string | undefined {
  const payloads = [...text.matchAll(ANSWER_COLON_PAYLOADS)].map((match) => match[1]!);
  for (const payload of payloads.reverse()) {
    const letter = choiceLetter(payload, allowed);
    if (letter !== undefined) return letter;
  }
  return undefined;
}

/**
 * A template's own pattern (Python syntax read as JavaScript's), case-insensitive, its last match: a
 * single letter is trusted even outside the options (the template is), else an option's text. A
 * pattern that does not compile extracts nothing.
 */
function templateRegexAnswer(text: string, pattern: string, options: McqaOptions | null, allowed: Set<string>): string | undefined {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'gi');
  } catch {
    return undefined;
  }
  const last = [...text.matchAll(regex)].at(-1);
  if (!last) return undefined;
  // Python's findall gives the group when there is one, else the whole match (with more it gives a
  // tuple NeMo Gym cannot strip; its templates all have one).
  const captured = normalizeLocalisedLetters(pythonStrip(last.length > 1 ? (last[1] ?? '') : last[0])).toUpperCase();
  if (/^\p{L}$/u.test(captured)) return captured;
  return optionWithText(captured, options, allowed);
}

function byGradingMode(text: string, question: McqaQuestion, allowed: Set<string>): string | undefined {
  switch (question.gradingMode) {
    case 'strict_single_letter_boxed':
      return strictBoxedLetter(text, allowed);
    case 'lenient_boxed':
      return strictBoxedLetter(text, allowed) ?? boxedOptionText(text, question.options, allowed);
    case 'lenient_answer_colon':
      return answerColon(text, question.options, allowed);
    case 'lenient_answer_colon_md':
      return answerColonMarkdown(text, allowed);
  }
}

/**
 * NeMo Gym mcqa's answer letter from a reply's text: the row's template patterns first, in order,
 * then the grading mode's reading. Undefined when nothing is extracted.
 */
export function mcqaAnswer(text: string, question: McqaQuestion): string | undefined {
  const allowed = allowedLetters(question.options);
  const patterns = typeof question.outputRegex === 'string' ? [question.outputRegex] : (question.outputRegex ?? []);
  for (const pattern of patterns) {
    const letter = templateRegexAnswer(text, pattern, question.options, allowed);
    if (letter !== undefined) return letter;
  }
  return byGradingMode(text, question, allowed);
}
