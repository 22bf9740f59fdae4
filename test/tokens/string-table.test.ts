import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bpeTables, decodeBpeTables, encodeBpeTables } from '../../src/tokens/bpe-tables.js';
import { StringTable } from '../../src/tokens/string-table.js';
import { StringTableMap } from '../../src/tokens/string-table-map.js';

const strings = ['', 'a', 'ab', 'ba', 'Ġthe', '["Ġ","t"]', 'a lone \ud800 surrogate', '\udc00', '日本', '😀', 'x'.repeat(300)];

describe('StringTable', () => {
  it('finds every string at its position, and nothing else', () => {
    const table = StringTable.of(strings);
    strings.forEach((string, index) => {
      assert.equal(table.indexOf(string), index, JSON.stringify(string));
      assert.equal(table.at(index), string);
      assert.equal(table.lengthAt(index), string.length);
    });
    for (const missing of ['b', 'aba', 'Ġth', 'Ġthe ', '\ud800', '\udc00\udc00', 'x'.repeat(299), 'constructor', '__proto__'])
      assert.equal(table.indexOf(missing), -1, JSON.stringify(missing));
    assert.deepEqual(table.strings(), strings);
    assert.equal(table.size, strings.length);
  });

  it('resolves a repeated string to its last position, as a Map built in order does', () => {
    const repeated = ['a', 'b', 'a', 'c', 'b', 'a'];
    const table = StringTable.of(repeated);
    const map = new Map(repeated.map((string, index) => [string, index]));
    for (const key of ['a', 'b', 'c']) assert.equal(table.indexOf(key), map.get(key));
  });

  it('holds many strings (colliding slots) and an empty list', () => {
    const many = Array.from({ length: 20_000 }, (_, index) => `t${index.toString(36)}`);
    const table = StringTable.of(many);
    many.forEach((string, index) => assert.equal(table.indexOf(string), index));
    assert.equal(table.indexOf('t'), -1);
    assert.equal(StringTable.of([]).indexOf(''), -1);
  });
});

describe('StringTableMap', () => {
  it('answers get and has like the Map it stands for, set keys first', () => {
    const table = StringTable.of(['a', 'b', 'c']);
    for (const remember of [false, true]) {
      const lookup = new StringTableMap(table, { values: Int32Array.of(10, 20, 30), remember });
      const map = new Map([
        ['a', 10],
        ['b', 20],
        ['c', 30],
      ]);
      for (const [key, value] of [
        ['b', 7],
        ['z', 8],
      ] as const)
        [lookup.set(key, value), map.set(key, value)];
      for (const key of ['a', 'b', 'c', 'z', 'y', '', undefined as unknown as string, 'a', 'b']) {
        assert.equal(lookup.get(key), map.get(key), String(key));
        assert.equal(lookup.has(key), map.has(key), String(key));
      }
    }
    assert.equal(new StringTableMap(table).get('c'), 2);
  });
});

describe('BPE tables', () => {
  const json = {
    version: '1.0',
    model: { type: 'BPE', unk_token: null, vocab: { a: 0, b: 1, ab: 2, '12': 3, 'Ġ\ud800': 4 }, merges: ['a b', 'ab b', 'a b'] },
  };

  it('round-trip through their bytes, and refuse damaged bytes or another file', () => {
    const tables = bpeTables(json)!;
    const bytes = encodeBpeTables(tables, { file: 1 });
    const decoded = decodeBpeTables(Buffer.from(bytes), { file: 1 })!;
    // Object.entries order: integer-like keys first.
    assert.deepEqual(decoded.tokens.strings(), ['12', 'a', 'b', 'ab', 'Ġ\ud800']);
    assert.deepEqual([...decoded.ids], [3, 0, 1, 2, 4]);
    assert.deepEqual(decoded.merges.strings(), ['["a","b"]', '["ab","b"]', '["a","b"]']);
    assert.equal(decoded.merges.indexOf('["a","b"]'), 2);
    assert.deepEqual(decoded.shell, { version: '1.0', model: { type: 'BPE', unk_token: null, vocab: {}, merges: [] } });
    assert.equal(decodeBpeTables(Buffer.from(bytes), { file: 2 }), undefined);
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 3]! ^= 1;
    assert.equal(decodeBpeTables(flipped, { file: 1 }), undefined);
    assert.equal(decodeBpeTables(bytes.subarray(0, bytes.length - 2), { file: 1 }), undefined);
    // The header's shell is covered too: '1.0' read as '1.1' would be tables no one wrote.
    const header = Buffer.from(bytes);
    header[header.indexOf('"1.0"', 0, 'latin1') + 3] = '1'.charCodeAt(0);
    assert.equal(decodeBpeTables(header, { file: 1 }), undefined);
    // Read at an odd offset of a larger buffer: still the same tables.
    const shifted = Buffer.concat([Buffer.alloc(1), bytes]).subarray(1);
    assert.deepEqual(decodeBpeTables(shifted, { file: 1 })!.tokens.strings(), decoded.tokens.strings());
  });
});
