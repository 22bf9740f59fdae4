import { collapseWhitespace, pythonFloat } from './python-text.js';

/**
 * NeMo Gym string_match's case-insensitive grade (`_grade_string_match`, "NeMo RL string-match verifier
 * without format reward"): after NFKC, outer quotes, case and trailing `.!?`, the answers match when any
 * normalisation makes them equal (float, thousands separators, LaTeX wrappers, lists, US state names,
 * units); a number within 1% scores its squared closeness, capped at 0.98.
 */
export function gradeStringMatch(expected: string, predicted: string): number {
  const gold = stripTrailingPunctuation(stripOuterQuotes(expected.normalize('NFKC')).toLowerCase());
  const pred = stripTrailingPunctuation(stripOuterQuotes(predicted.normalize('NFKC')).toLowerCase());
  if (pred === gold || sameFloat(pred, gold)) return 1;
  for (const normalize of [normalizeNumbers, normalizeLatex, normalizeLists, normalizeStates]) {
    if (normalize(pred) === normalize(gold)) return 1;
  }
  if (softNumericGrade(gold, pred) > 0.98) return 0.98;
  const predStripped = withoutUnits(normalizeUnicodeMath(normalizeLatex(pred))).trim();
  const goldStripped = withoutUnits(normalizeUnicodeMath(normalizeLatex(gold))).trim();
  if (predStripped === goldStripped) return 1;
  return softNumericGrade(goldStripped, predStripped) > 0.98 ? 0.98 : 0;
}

function stripOuterQuotes(text: string): string {
  return text.length >= 2 && text[0] === text.at(-1) && (text[0] === '"' || text[0] === "'") ? text.slice(1, -1) : text;
}

function stripTrailingPunctuation(text: string): string {
  return text.replace(/[.!?]+$/, '') || text;
}

/**
 * `str(float(a)) == str(float(b))` after dropping `$` and `\%`: equal when both parse to the same value
 * (Python prints NaN as "nan", so two NaNs are equal too); text that does not parse was compared already.
 */
function sameFloat(a: string, b: string): boolean {
  const clean = (text: string) => pythonFloat(text.replaceAll('\\%', '').replaceAll('\\$', '').replaceAll('$', ''));
  const [x, y] = [clean(a), clean(b)];
  if (x === undefined || y === undefined) return false;
  return x === y || (Number.isNaN(x) && Number.isNaN(y));
}

function normalizeNumbers(text: string): string {
  return text.replace(/(\d+),(\d+)/g, '$1$2').replaceAll('\\%', '%');
}

const LATEX_COMMANDS = [
  '\\boxed',
  '\\text',
  '\\textbf',
  '\\textit',
  '\\texttt',
  '\\mathrm',
  '\\mathbf',
  '\\mathit',
  '\\mathsf',
  '\\mathbb',
  '\\mathcal',
  '\\emph',
  '\\url',
];

function normalizeLatex(text: string): string {
  for (const command of LATEX_COMMANDS) text = removeLatexCommand(command, text);
  for (const token of ['\\(', '\\)', '\\[', '\\]', '$']) text = text.replaceAll(token, '');
  return collapseWhitespace(text);
}

/** `\cmd{body}` → `body`, braces balanced; an unclosed `\cmd{` just loses its opening. */
function removeLatexCommand(command: string, text: string): string {
  const opening = `${command}{`;
  for (let at = text.indexOf(opening); at !== -1; at = text.indexOf(opening)) {
    const prefix = text.slice(0, at);
    const suffix = text.slice(at + opening.length);
    let depth = 1;
    let close = -1;
    for (let index = 0; index < suffix.length && close === -1; index += 1) {
      if (suffix[index] === '{') depth += 1;
      else if (suffix[index] === '}' && --depth === 0) close = index;
    }
    text = close === -1 ? prefix + suffix : prefix + suffix.slice(0, close) + suffix.slice(close + 1);
  }
  return text;
}

/**
 * Separators (`,` `;` and the letters "and"/"or", even inside words, as NeMo Gym does) become spaces,
 * unless that removes more than a tenth of the text.
 */
function normalizeLists(text: string): string {
  const replaced = text.replaceAll(',', ' ').replaceAll(';', ' ').replaceAll('and', ' ').replaceAll('or', ' ');
  if ([...replaced].length < 0.9 * [...text].length) return text;
  return collapseWhitespace(replaced);
}

// In NeMo Gym's order: two-word names first, and "arkansas" before "kansas", "west virginia" before "virginia".
const STATES: readonly [string, string][] = Object.entries({
  'district of columbia': 'DC',
  'new hampshire': 'NH',
  'new jersey': 'NJ',
  'new mexico': 'NM',
  'new york': 'NY',
  'north carolina': 'NC',
  'north dakota': 'ND',
  'rhode island': 'RI',
  'south carolina': 'SC',
  'south dakota': 'SD',
  'west virginia': 'WV',
  alabama: 'AL',
  alaska: 'AK',
  arizona: 'AZ',
  arkansas: 'AR',
  california: 'CA',
  colorado: 'CO',
  connecticut: 'CT',
  delaware: 'DE',
  florida: 'FL',
  georgia: 'GA',
  hawaii: 'HI',
  idaho: 'ID',
  illinois: 'IL',
  indiana: 'IN',
  iowa: 'IA',
  kansas: 'KS',
  kentucky: 'KY',
  louisiana: 'LA',
  maine: 'ME',
  maryland: 'MD',
  massachusetts: 'MA',
  michigan: 'MI',
  minnesota: 'MN',
  mississippi: 'MS',
  missouri: 'MO',
  montana: 'MT',
  nebraska: 'NE',
  nevada: 'NV',
  ohio: 'OH',
  oklahoma: 'OK',
  oregon: 'OR',
  pennsylvania: 'PA',
  tennessee: 'TN',
  texas: 'TX',
  utah: 'UT',
  vermont: 'VT',
  virginia: 'VA',
  washington: 'WA',
  wisconsin: 'WI',
  wyoming: 'WY',
});

function normalizeStates(text: string): string {
  for (const [name, abbreviation] of STATES) text = text.replaceAll(name, abbreviation);
  return normalizeLists(text).toLowerCase();
}

const UNICODE_MATH: readonly [string, string][] = [
  ['°', '^\\circ'],
  ['²', '^2'],
  ['³', '^3'],
  ['⁴', '^4'],
  ['⁵', '^5'],
  ['⁶', '^6'],
  ['⁷', '^7'],
  ['⁸', '^8'],
  ['⁹', '^9'],
  ['√', '\\sqrt'],
  ['﹣', '-'],
  ['﹢', '+'],
  ['﹦', '='],
  ['﹤', '<'],
  ['﹥', '>'],
  ['：', ':'],
  ['π', '\\pi'],
];

function normalizeUnicodeMath(text: string): string {
  for (const [from, to] of UNICODE_MATH) text = text.replaceAll(from, to);
  return text;
}

// NeMo Gym's unit pattern, letters and all: a bare "m" goes too, wherever it is.
const MATH_UNITS = /\^\{?\\circ\}?|\\circ|°|cm[²³]?|mm|km|m[²³]?|kg/g;

function withoutUnits(text: string): string {
  return text.replace(MATH_UNITS, '');
}

function stripNumeric(text: string): string {
  for (const char of '$£€%,') text = text.replaceAll(char, '');
  return withoutUnits(normalizeUnicodeMath(text)).replaceAll('\\%', '').replaceAll('\\$', '').trim();
}

/** `max(0, 1 − relative error)²` when both sides are numbers, else 0 (NaN compares as 0, as Python's max does). */
function softNumericGrade(expected: string, predicted: string): number {
  const pred = pythonFloat(stripNumeric(predicted));
  const gold = pythonFloat(stripNumeric(expected));
  if (pred === undefined || gold === undefined) return 0;
  const closeness = 1 - Math.abs(pred - gold) / Math.max(Math.abs(gold), 1e-9);
  return closeness > 0 ? closeness ** 2 : 0;
}
