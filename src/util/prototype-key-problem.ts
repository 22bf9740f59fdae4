/** Keys that reach a JavaScript object's prototype rather than a field of its own. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * What is wrong with a dotted key (`a.b.c`) that reaches a JavaScript object's prototype, or undefined
 * when it does not. Set through such a key, `__proto__` replaces the object's prototype (the value
 * vanishes from the JSON written) and `constructor.prototype` writes a field no request has.
 */
export function prototypeKeyProblem(dottedKey: string): string | undefined {
  const part = dottedKey.split('.').find((key) => PROTOTYPE_KEYS.has(key));
  return part === undefined ? undefined : `a key with ${part} in it reaches a JavaScript object's prototype, not a request field`;
}
