import { InvalidArgumentError, type Option } from 'commander';
import { showValue } from '../core/schema-issues.js';
import { parseNumRepeats } from './flag-parsers.js';

/**
 * A config file's value as the flag's own parser reads it, so a file is checked exactly like a command
 * line: scalars go through the parser as text, mappings (`set`, `agent-server`, a `num-repeats` map)
 * and lists (`base-url`) entry by entry. A value of another shape goes through the parser as its JSON
 * text, so the parser's own message says what the option takes.
 */
export function configValue(option: Option, value: unknown): unknown {
  if (option.isBoolean()) {
    if (typeof value !== 'boolean') throw new InvalidArgumentError(`expected true or false, got ${describeValue(value)}`);
    return value;
  }
  const parse = option.parseArg as ((text: string, previous: unknown) => unknown) | undefined;
  if (Array.isArray(option.defaultValue)) {
    const items = Array.isArray(value) ? value : [value];
    if (!items.every((item) => typeof item === 'string')) throw new InvalidArgumentError(`expected text or a list of text, got ${describeValue(value)}`);
    return items;
  }
  const mapping = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (option.attributeName() === 'numRepeats' && mapping) return parseNumRepeats(JSON.stringify(value));
  if (parse && typeof option.defaultValue === 'object') {
    if (!mapping) throw new InvalidArgumentError(`expected a mapping of key: value, got ${describeValue(value)}`);
    let entries: unknown = {};
    for (const [key, item] of Object.entries(value)) entries = parse(`${key}=${JSON.stringify(item)}`, entries);
    return entries;
  }
  if (!parse) {
    if (typeof value !== 'string')
      throw new InvalidArgumentError(`expected text, got ${describeValue(value)}${typeof value === 'number' ? ' (quote it to mean the text)' : ''}`);
    return value;
  }
  return parse(typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value), option.defaultValue);
}

/** A config value in a message: its YAML kind and its text. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (null)';
  if (Array.isArray(value)) return `a list ${showValue(value)}`;
  if (typeof value === 'object') return `a mapping ${showValue(value)}`;
  return showValue(value);
}
