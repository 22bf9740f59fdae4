import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { extensibleCopy } from '../../src/util/extensible-copy.js';

const run = promisify(execFile);

describe('extensibleCopy: { ...object, ...additions } whose later properties share hidden classes', () => {
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

  it('gives copies of parsed objects, extended alike, one hidden class (V8, checked with natives syntax)', async () => {
    const module = fileURLToPath(new URL('../../src/util/extensible-copy.ts', import.meta.url));
    const script = `
      const { extensibleCopy } = await import(${JSON.stringify(module)});
      const rows = JSON.parse('[' + Array.from({ length: 40 }, (_, i) => '{"task": ' + i + ', "text": "t"}').join(',') + ']');
      const copies = rows.map((row, i) => { const copy = extensibleCopy(row, { seed: i }); copy.reward = i % 2; return copy; });
      console.log(copies.every((copy) => %HaveSameMap(copy, copies[0])));`;
    const { stdout } = await run(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script]);
    assert.equal(stdout.trim(), 'true');
  });
});
