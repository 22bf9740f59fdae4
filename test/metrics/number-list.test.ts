import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NumberList } from '../../src/metrics/number-list.js';

describe('NumberList', () => {
  it('reads back every number it was given, widening only when one does not fit', () => {
    const values = [0, 1, 254, 255, 65_534, 65_535, 2 ** 32 - 2, 2 ** 32 - 1, 2 ** 53, -1, -0, 0.5, Number.NaN, Infinity, -Infinity];
    for (let split = 0; split <= values.length; split++) {
      const list = new NumberList();
      // Small values first, so each later one widens a list that already holds values (and gaps).
      const ordered = [...values.slice(split), ...values.slice(0, split)];
      ordered.forEach((value, i) => list.set(2 * i, value));
      ordered.forEach((value, i) => {
        assert.ok(Object.is(list.get(2 * i), value), `${value} at ${2 * i} read ${list.get(2 * i)}`);
        assert.ok(Number.isNaN(list.get(2 * i + 1)) || 2 * i + 1 >= list.length, `gap at ${2 * i + 1}`);
      });
      assert.equal(list.length, 2 * ordered.length - 1);
    }
  });

  it('reads unset slots and slots past the end as its fill, and sums from it', () => {
    const sums = new NumberList(0);
    sums.add(3, 2);
    sums.add(3, 0.25);
    sums.add(300, 1);
    assert.deepEqual([sums.get(0), sums.get(3), sums.get(299), sums.get(300), sums.get(1000)], [0, 2.25, 0, 1, 0]);
    const absent = new NumberList();
    absent.push(7);
    absent.push(Number.NaN);
    absent.set(5, 70_000);
    assert.deepEqual(Array.from(absent.toFloat64Array()), [7, Number.NaN, Number.NaN, Number.NaN, Number.NaN, 70_000]);
  });

  it('grows keeping its values', () => {
    const list = new NumberList();
    for (let i = 0; i < 1000; i++) list.push(i * 3);
    for (let i = 0; i < 1000; i++) assert.equal(list.get(i), i * 3);
    assert.equal(list.length, 1000);
  });
});
