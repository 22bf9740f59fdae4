import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HashTable64 } from '../../src/util/hash-table-64.js';
import { TaskCounter } from '../../src/util/task-counter.js';
import { createSeededRandom } from '../../src/util/seeded-random.js';

describe('HashTable64', () => {
  it('maps 64-bit keys to values through growth, and answers -1 for unknown keys', () => {
    const table = new HashTable64();
    const random = createSeededRandom(3);
    const keys = Array.from({ length: 50_000 }, () => [random.int(0, 2 ** 32 - 1), random.int(0, 2 ** 32 - 1)] as const);
    keys.forEach(([high, low], i) => table.set(high, low, i));
    keys.forEach(([high, low], i) => assert.equal(table.get(high, low), i));
    assert.equal(table.get(1, 2), -1);
    table.set(keys[0]![0], keys[0]![1], 7);
    assert.equal(table.get(keys[0]![0], keys[0]![1]), 7);
    assert.equal(table.size, 50_000);
  });

  it('tells apart keys that share one half', () => {
    const table = new HashTable64();
    table.set(5, 1, 10);
    table.set(5, 2, 20);
    table.set(6, 1, 30);
    assert.deepEqual([table.get(5, 1), table.get(5, 2), table.get(6, 1), table.get(6, 2)], [10, 20, 30, -1]);
  });
});

describe('TaskCounter', () => {
  it('counts dense and sparse task indices, listing them in index order', () => {
    const counter = new TaskCounter();
    assert.equal(counter.increment(3), 0);
    assert.equal(counter.increment(3), 1);
    counter.increment(5000);
    counter.increment(2 ** 30);
    assert.equal(counter.get(3), 2);
    assert.equal(counter.get(4), 0);
    assert.deepEqual(
      [...counter.entries()],
      [
        [3, 2],
        [5000, 1],
        [2 ** 30, 1],
      ],
    );
  });
});
