/** A JSON object, as `z.object(…)` takes one: an object that is not an array (nor null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A record a schema copies as it is: without a `__proto__` key (JSON.parse makes it an own key, which
 * a schema's copy drops or turns into a prototype).
 */
export function isOwnRecord(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && !Object.hasOwn(value, '__proto__');
}
