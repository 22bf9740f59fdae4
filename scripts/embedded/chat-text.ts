import type { SeededRandom } from '../../src/util/seeded-random.js';

/** System prompts a conversation may open with, NeMo Gym's example's among them. */
export const SYSTEM_PROMPTS = [
  'You are a helpful assistant.',
  'You are a helpful personal assistant that aims to be helpful and reduce any pain points the user has.',
  'Use the calculator tool for products and long sums.',
  'You can call tools.',
  'Answer with a number only.',
  'Be brief.',
];

const WORDS = [
  'hello',
  'hi',
  'hey',
  'thanks',
  'please',
  'tell',
  'me',
  'a',
  'joke',
  'about',
  'the',
  'weather',
  'in',
  'Paris',
  'sf',
  'what',
  "what's",
  'is',
  'your',
  'name',
  'who',
  'are',
  'you',
  'can',
  'help',
  'write',
  'poem',
  'story',
  'code',
  'explain',
  'how',
  'why',
  'when',
  'where',
  'it',
  'good',
  'morning',
  'today',
  'tomorrow',
  'I',
  'we',
  'they',
  'love',
  'like',
  'need',
  'want',
  'know',
  'think',
  'Python',
  'function',
  'list',
  'sort',
  'numbers',
  'cat',
  'dog',
  'sun',
  'rain',
  'math',
  'problem',
  'solve',
  'equation',
  'find',
  'value',
  'of',
  'and',
  'or',
  'not',
  'with',
  'for',
  'to',
  'time',
  'capital',
  'France',
  'New',
  'York',
  'going',
  'out',
  'tonight',
  'answer',
  'question',
  'Let',
  'x',
  'be',
];

/** Pieces beyond words: the LaTeX, JSON, paths, numbers and whitespace real prompts carry. */
const PIECES = [
  '$x^2$',
  '$\\frac{1}{2}$',
  '\\boxed{}',
  '(a+b)',
  '[1, 2, 3]',
  '{"key": "value"}',
  '#1',
  '@user',
  '100%',
  '3.14',
  'C:\\path',
  '$5',
  '&',
  '~',
  '|',
  '`code`',
  "'quoted'",
  '"quoted"',
  '12',
  '2024',
  ':)',
  '...',
  '\t',
  '\n',
];

/** Room in the 256-token context for the reply and, in two-turn chats, a second prompt. */
const MAX_CHAT_CHARS = 110;

/**
 * Text that asks no arithmetic: words and pieces in random order and case, sometimes several lines,
 * sometimes worded like a question the model does answer ("what is the capital of France?"), so that
 * only `what is <expression>?` reads as arithmetic. Mostly short, at most `MAX_CHAT_CHARS` characters.
 */
export function chatText(random: SeededRandom): string {
  if (random.next() < 0.2) return `${random.next() < 0.5 ? 'what is' : 'What is'} ${phrase(random, random.int(1, 5))}?`;
  const lines = random.next() < 0.15 ? random.int(2, 4) : 1;
  return Array.from({ length: lines }, () => sentence(random))
    .join(random.next() < 0.5 ? '\n' : '\n\n')
    .slice(0, MAX_CHAT_CHARS);
}

function sentence(random: SeededRandom): string {
  const length = random.next() < 0.1 ? random.int(12, 30) : random.int(1, 10);
  const text = phrase(random, length);
  const capitalized = random.next() < 0.5 ? text[0]!.toUpperCase() + text.slice(1) : text;
  return capitalized + random.pick(['', '.', '?', '!', '?', '.']);
}

function phrase(random: SeededRandom, length: number): string {
  return Array.from({ length }, () => (random.next() < 0.2 ? random.pick(PIECES) : random.pick(WORDS))).join(' ');
}
