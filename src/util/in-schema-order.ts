/**
 * The object's keys as a loose object schema returns them: the schema's own in its order, then the
 * others in the object's. A `__proto__` key (JSON.parse makes it an own property) is dropped, as the
 * schema drops it: assigning it would set the new object's prototype, planting fields it does not have.
 */
export function inSchemaOrder(value: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const ordered: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(value, key)) ordered[key] = value[key];
  for (const key in value) if (key !== '__proto__' && !Object.hasOwn(ordered, key)) ordered[key] = value[key];
  return ordered;
}
