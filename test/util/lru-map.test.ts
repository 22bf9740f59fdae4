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

  it('refuses a capacity that is not a whole number of at least 1', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN]) assert.throws(() => new LruMap(capacity), RangeError);
  });
});
