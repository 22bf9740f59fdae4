import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { histogram } from '../../src/viewer/histogram.js';

const over = (values: number[], maxBins?: number) => histogram(values, [...values.keys()], maxBins);
const bars = (values: number[], maxBins?: number) => over(values, maxBins).map(({ lo, hi, count }) => [lo, hi, count]);

describe("histogram (the viewer's reward, turn and token bars)", () => {
  it('gives 0/1 rewards one bar per value, each holding exactly that value', () => {
    assert.deepEqual(bars([0, 1, 1, 0, 1], 10), [
      [0, 0, 2],
      [1, 1, 3],
    ]);
  });

  it('gives small integer ranges one bar per value, values that never occur included', () => {
    assert.deepEqual(bars([1, 1, 3, 2, 1, 3]), [
      [1, 1, 3],
      [2, 2, 1],
      [3, 3, 2],
    ]);
    assert.deepEqual(bars([2, 5]), [
      [2, 2, 1],
      [3, 3, 0],
      [4, 4, 0],
      [5, 5, 1],
    ]);
  });

  it('groups wide integer ranges into bars of whole integers, lo through hi, the last ending at the largest value', () => {
    const tokens = Array.from({ length: 100 }, (_, i) => 10 + i);
    const result = over(tokens, 20);
    assert.equal(result.length, 20);
    assert.deepEqual(
      [result[0]!, result[19]!].map(({ lo, hi, count }) => [lo, hi, count]),
      [
        [10, 14, 5],
        [105, 109, 5],
      ],
    );
    for (let i = 1; i < result.length; i++) assert.equal(result[i]!.lo, result[i - 1]!.hi + 1, 'no integer falls between two bars');
  });

  it('splits fractional values into equal [lo, hi) bars, the largest value in the last', () => {
    assert.deepEqual(bars([0, 0.25, 0.5, 1], 4), [
      [0, 0.25, 1],
      [0.25, 0.5, 1],
      [0.5, 0.75, 1],
      [0.75, 1, 1],
    ]);
  });

  it('gives one value one bar, and skips values that are not finite', () => {
    assert.deepEqual(bars([0.5, 0.5, Number.NaN, Number.POSITIVE_INFINITY]), [[0.5, 0.5, 2]]);
    assert.deepEqual(bars([7]), [[7, 7, 1]]);
  });

  it('gives no bars without values', () => {
    assert.deepEqual(over([]), []);
    assert.deepEqual(over([Number.NaN]), []);
  });
});
