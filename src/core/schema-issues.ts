import type { z } from 'zod';

/** One thing wrong with a value, worded for the person who wrote it: where, what was expected, what was there. */
export interface SchemaIssue {
  /** Dotted path to the field (`responses_create_params.temperature`); empty for the value itself. */
  field: string;
  /** `expected …, got …`, or `missing (expected …)` for an absent field. */
  message: string;
  /** The `expected …` part alone, for callers that show the value as it was typed. */
  expected: string;
}

/**
 * Reads `value` with `schema`, or words each problem as `expected …, got …` with the value found
 * there, instead of zod's `Invalid input: expected number, received string`. A schema's own message
 * (a refinement's, or `{ error }` on a check) is taken as the expectation, so custom rules read alike.
 */
export function parseWithIssues<Schema extends z.ZodType>(schema: Schema, value: unknown): { data: z.infer<Schema> } | { issues: SchemaIssue[] } {
  const parsed = schema.safeParse(value, { error: expectation });
  if (parsed.success) return { data: parsed.data };
  return { issues: parsed.error.issues.flatMap((issue) => describe(issue, value)) };
}

/** Every problem `parseWithIssues` finds; none when `value` fits. */
export function schemaIssues(schema: z.ZodType, value: unknown): SchemaIssue[] {
  const parsed = parseWithIssues(schema, value);
  return 'issues' in parsed ? parsed.issues : [];
}

function describe(issue: z.core.$ZodIssue, root: unknown): SchemaIssue[] {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => ({ field: [...path, key].join('.'), message: 'unknown field', expected: 'no such field' }));
  if (issue.code === 'invalid_union') {
    const branch = closestBranch(issue.errors);
    if (branch) return branch.flatMap((inner) => describe({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue, root));
  }
  const found = valueAt(root, path);
  return [
    {
      field: path.join('.'),
      message: found.present ? `${issue.message}, got ${showValue(found.value)}` : `missing (${issue.message})`,
      expected: issue.message,
    },
  ];
}

/**
 * Of a union's failed branches, the one that got furthest: its type matched (its issues are inside
 * the value) and its literal tags did (a `type: "function_call"` item is read as a function call), then
 * the one with the fewest issues. A tag no branch knows is one issue listing every tag; when every
 * branch wanted another type, none: the union's own message (`expected text or a list`) says it better.
 */
function closestBranch(branches: readonly (readonly z.core.$ZodIssue[])[]): readonly z.core.$ZodIssue[] | undefined {
  const typeMatched = branches.filter(
    (issues) => !issues.some((issue) => issue.path.length === 0 && (issue.code === 'invalid_type' || issue.code === 'invalid_union')),
  );
  const tagMatched = typeMatched.filter((issues) => !issues.some(isTagMismatch));
  // On a tie the later branch wins: unions list their most general shape last (a message item after function calls).
  const closest = tagMatched.reduce<readonly z.core.$ZodIssue[] | undefined>(
    (best, issues) => (best === undefined || issues.length <= best.length ? issues : best),
    undefined,
  );
  return closest ?? unknownTag(typeMatched);
}

const isTagMismatch = (issue: z.core.$ZodIssue) => issue.code === 'invalid_value' && issue.values.length === 1;

function unknownTag(branches: readonly (readonly z.core.$ZodIssue[])[]): z.core.$ZodIssue[] | undefined {
  const tags = branches.flatMap((issues) => issues.filter(isTagMismatch)) as z.core.$ZodIssueInvalidValue[];
  const path = tags[0]?.path;
  if (!path || tags.some((tag) => tag.path.join('.') !== path.join('.'))) return undefined;
  const values = tags.flatMap((tag) => tag.values);
  return [{ ...tags[0]!, values, message: `expected ${oneOf(values.map((value) => JSON.stringify(value)))}` }];
}

/** The expectation for an issue whose schema gave no message of its own. */
function expectation(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${typeName(issue.expected)}`;
    case 'too_small':
      return NUMERIC.has(issue.origin)
        ? `expected a number ${issue.inclusive ? '≥' : '>'} ${String(issue.minimum)}`
        : `expected at least ${String(issue.minimum)} ${sizeUnit(issue.origin, issue.minimum)}`;
    case 'too_big':
      return NUMERIC.has(issue.origin)
        ? `expected a number ${issue.inclusive ? '≤' : '<'} ${String(issue.maximum)}`
        : `expected at most ${String(issue.maximum)} ${sizeUnit(issue.origin, issue.maximum)}`;
    case 'invalid_value':
      return `expected ${oneOf(issue.values.map((option) => JSON.stringify(option)))}`;
    case 'invalid_union':
      return `expected ${oneOf([...new Set(issue.errors.flatMap((branch) => branch.filter((inner) => inner.code === 'invalid_type').map((inner) => typeName(inner.expected))))]) || 'another shape'}`;
    case 'not_multiple_of':
      return `expected a multiple of ${String(issue.divisor)}`;
    case 'invalid_format':
      return `expected ${issue.format} text`;
    default:
      return 'expected another value';
  }
}

/** Size issues of these origins bound a value; of the others (text, lists), a length. */
const NUMERIC: ReadonlySet<string> = new Set(['number', 'int', 'bigint']);

const TYPE_NAMES: Readonly<Record<string, string>> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  record: 'an object',
  null: 'null',
};

function oneOf(options: readonly string[]): string {
  return options.length > 2 ? `one of ${options.join(', ')}` : options.join(' or ');
}

function typeName(type: string): string {
  return TYPE_NAMES[type] ?? type;
}

function sizeUnit(origin: string, count: number | bigint): string {
  return `${origin === 'string' ? 'character' : 'item'}${Number(count) === 1 ? '' : 's'}`;
}

function valueAt(root: unknown, path: readonly string[]): { present: boolean; value?: unknown } {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return { present: false };
    value = (value as Record<string, unknown>)[key];
  }
  return { present: value !== undefined, value };
}

/** A value as it appeared in the input, cut short when long: a reader needs to recognise it, not reread it. */
export function showValue(value: unknown): string {
  const text = typeof value === 'number' || value === undefined ? String(value) : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
