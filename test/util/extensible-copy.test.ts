import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extensibleCopy } from '../../src/util/extensible-copy.js';

describe('extensibleCopy: { ...object, ...additions } (its hidden classes: `npm run bench -- extensible-copy`)', () => {
  it('copies what a spread copies, in the same order, additions replacing in place and adding at the end', () => {
    const symbol = Symbol('s');
    const object = JSON.parse('{"b": 1, "a": {"nested": true}, "c": null}') as Record<string | symbol, unknown>;
    object[symbol] = 's';
    const copy = extensibleCopy(object, { a: 2, d: 3 });
    assert.deepEqual(Reflect.ownKeys(copy), Reflect.ownKeys({ ...object, ...{ a: 2, d: 3 } }));
    assert.deepEqual(copy, { ...object, a: 2, d: 3 });
    assert.notEqual(copy, object);
    assert.deepEqual(extensibleCopy(object), { ...object });
  });

  it('keeps an own __proto__ key (JSON.parse makes one) as a property, never as the prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    for (const copy of [extensibleCopy(parsed, { y: 2 }), extensibleCopy({ x: 1 }, parsed)]) {
      assert.equal(Object.getPrototypeOf(copy), Object.prototype);
      assert.equal((copy as { polluted?: unknown }).polluted, undefined);
      assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value, { polluted: true });
    }
  });
});
