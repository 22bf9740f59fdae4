/**
 * `{ ...object, ...additions }`, made so that the copy and anything added to it later share V8's
 * hidden classes. In Node 20's V8, a spread copy of an object that is not an object literal (a parsed
 * row, an earlier copy) gets a hidden class that no transition leads from, so each property it gains,
 * there or later, makes a new class for that one object. Three such properties cost 1.4 µs against
 * 50 ns, leave a class per object to collect, and make every site that reads these objects
 * megamorphic (issue 13). `Object.assign` onto `{}` follows the shared transitions instead.
 *
 * An own `__proto__` key (JSON.parse makes one from a row) is copied by the spread, as an own
 * property: `Object.assign` would set the copy's prototype with it.
 */
export function extensibleCopy<T extends object, U extends object = Record<never, never>>(object: T, additions?: U): T & U {
  if (Object.hasOwn(object, '__proto__') || (additions !== undefined && Object.hasOwn(additions, '__proto__'))) return { ...object, ...additions } as T & U;
  return Object.assign({}, object, additions);
}
