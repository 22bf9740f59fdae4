import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LruMap } from '../../src/util/lru-map.js';

describe('a bounded cache (LruMap)', () => {
  it('keeps at most its capacity, dropping the least recently used entry', () => {
    const cache = new LruMap<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    assert.equal(cache.get('a'), 1, 'reading a makes it the most recent');
    cache.set('c', 3);
    assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c'), cache.size], [1, undefined, 3, 2]);
  });

  it('forgets an entry on delete, saying whether it was there', () => {
    const cache = new LruMap<string, number>(2);
    cache.set('a', 1);
    assert.deepEqual([cache.delete('a'), cache.delete('a'), cache.get('a'), cache.size], [true, false, undefined, 0]);
  });

  it('agrees with a plain list kept in recency order over thousands of mixed reads, writes and deletes', () => {
    const cache = new LruMap<number, number>(5);
    // Oldest first: the model every operation is checked against.
    let model: [number, number][] = [];
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let step = 0; step < 5_000; step++) {
      const key = random(9);
      const at = model.findIndex(([k]) => k === key);
      const operation = random(3);
      if (operation === 0) {
        cache.set(key, step);
        if (at >= 0) model.splice(at, 1);
        model.push([key, step]);
        if (model.length > 5) model = model.slice(1);
      } else if (operation === 1) {
        const expected = at >= 0 ? model[at]![1] : undefined;
        if (at >= 0) model.push(...model.splice(at, 1));
        assert.equal(cache.get(key), expected, `step ${step}: get ${key}`);
      } else {
        assert.equal(cache.delete(key), at >= 0, `step ${step}: delete ${key}`);
        if (at >= 0) model.splice(at, 1);
      }
      assert.equal(cache.size, model.length, `step ${step}: size`);
    }
  });

  it('refuses a capacity that is not a whole number of at least 1', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN]) assert.throws(() => new LruMap(capacity), RangeError);
  });
});
