/** A key present with the value undefined, which JSON cannot write: `withUndefinedKeys` makes it one. */
export const SET_UNDEFINED = Symbol('set to undefined');

export interface VariantOptions {
  /** What each value is replaced with in turn (undefined removes an object's key). */
  replacements: readonly unknown[];
  /** How deep into the value changes go. */
  maxDepth: number;
  /** Also grow and shrink each array, and set each key to `SET_UNDEFINED`. */
  reshape?: boolean;
}

/**
 * Every variant of `value` with one change: a value replaced or removed, or an unknown key (`zz`) added
 * to an object. What a hand check must read exactly as its schema does (the differential specs).
 */
export function* oneChangeVariants(
  value: unknown,
  options: VariantOptions,
  replace: (next: unknown) => unknown = (next) => next,
  depth = 0,
): Generator<unknown> {
  for (const next of options.replacements) yield replace(next);
  if (depth > options.maxDepth || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const [i, item] of value.slice(0, 3).entries())
      yield* oneChangeVariants(item, options, (next) => replace(value.map((old, j) => (j === i ? next : old))), depth + 1);
    if (options.reshape) yield* [replace([...value, value[0]]), replace(value.slice(1))];
    return;
  }
  const record = value as Record<string, unknown>;
  yield replace({ ...record, zz: 1 });
  for (const key of Object.keys(record)) {
    if (options.reshape) yield replace({ ...record, [key]: SET_UNDEFINED });
    const withKey = (next: unknown) => {
      const copy = { ...record };
      if (next === undefined) delete copy[key];
      else copy[key] = next;
      return replace(copy);
    };
    yield* oneChangeVariants(record[key], options, withKey, depth + 1);
  }
}

/** Turns `SET_UNDEFINED` marks into keys that are present but undefined. */
export function withUndefinedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withUndefinedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, item === SET_UNDEFINED ? undefined : withUndefinedKeys(item)]));
}
