// Inline SVG charts: histograms, curves and category bars. Each chart has a text alternative
// (aria-label plus a <title> per mark) so the numbers are readable without the picture, and titles on
// both axes. Ticks fall on round values, integers only for integer data (turns, tokens, k); a chart
// of one value shows one labelled bar or point, not a scale stretched around nothing.

import { h, s } from './dom.js';

const W = 320;
const H = 180;
// Room for the y axis's title and ticks on the left, the x axis's ticks and title below, and half a
// tick label past the right end of the axis, so none is clipped.
const PAD = { left: 46, right: 16, top: 10, bottom: 38 };
const PLOT_W = W - PAD.left - PAD.right;
const PLOT_H = H - PAD.top - PAD.bottom;
const Y0 = H - PAD.bottom;
/** Bars are at most this wide: one bar of a single value is a bar, not a block filling the chart. */
const MAX_BAR_W = 48;

function tickLabel(value) {
  if (!Number.isFinite(value)) return '';
  if (Math.abs(value) >= 10_000) return `${Number((value / 1000).toFixed(1))}k`;
  return String(Number(value.toFixed(2)));
}

/**
 * Round values from lo to hi, at most about `count` of them: steps of 1, 2 or 5 times a power of ten,
 * never below 1 for integer data. lo === hi gives the one value.
 */
export function niceTicks(lo, hi, { integer = false, count = 5 } = {}) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (hi <= lo) return [lo];
  const rough = (hi - lo) / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(rough));
  let step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough) ?? 10 * power;
  if (integer) step = Math.max(1, Math.round(step));
  const ticks = [];
  for (let value = Math.ceil(lo / step) * step; value <= hi + step * 1e-9; value += step) ticks.push(Number(value.toFixed(10)));
  return ticks;
}

function frame(label, ...children) {
  return s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': label }, s('title', {}, label), ...children);
}

/** Both axes, their ticks ({at: px, text, anchor?}) and titles. */
function axes({ xTicks, yTicks, xTitle, yTitle }) {
  return [
    ...yTicks.map(({ at }) => s('line', { x1: PAD.left, y1: at, x2: W - PAD.right, y2: at, class: 'grid' })),
    s('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: Y0, class: 'axis' }),
    s('line', { x1: PAD.left, y1: Y0, x2: W - PAD.right, y2: Y0, class: 'axis' }),
    ...yTicks.map(({ at, text }) => s('text', { x: PAD.left - 4, y: at + 3.5, class: 'tick y-tick', 'text-anchor': 'end' }, text)),
    ...xTicks.map(({ at, text, anchor }) => s('text', { x: at, y: Y0 + 13, class: 'tick x-tick', 'text-anchor': anchor ?? 'middle' }, text)),
    s('text', { x: PAD.left + PLOT_W / 2, y: H - 6, class: 'axis-title x-title', 'text-anchor': 'middle' }, xTitle),
    s('text', { x: 11, y: PAD.top + PLOT_H / 2, class: 'axis-title y-title', 'text-anchor': 'middle', transform: `rotate(-90 11 ${PAD.top + PLOT_H / 2})` }, yTitle),
  ];
}

/** Counts on the y axis: integer ticks from 0 to the largest. */
function countTicks(max) {
  return niceTicks(0, max, { integer: true, count: 4 }).map((value) => ({ at: Y0 - (value / max) * PLOT_H, text: tickLabel(value) }));
}

/** A bar's values: one value when `lo === hi` (an integer bar of one value), else "lo to hi". */
const binLabel = (bin) => (bin.lo === bin.hi ? tickLabel(bin.lo) : `${tickLabel(bin.lo)} to ${tickLabel(bin.hi)}`);

/**
 * bins: [{lo, hi, count}] (see src/viewer/histogram.ts) → a bar chart. xTitle names the values
 * (default: the label), yTitle what is counted (default "rollouts").
 */
export function histogram(bins, { label, xTitle = label, yTitle = 'rollouts' }) {
  if (!bins || bins.length === 0) return h('p', { class: 'empty' }, `${label}: no data`);
  const max = Math.max(1, ...bins.map((bin) => bin.count));
  const slot = PLOT_W / bins.length;
  const barW = Math.min(MAX_BAR_W, slot - 2);
  const left = (i) => PAD.left + i * slot + (slot - barW) / 2;
  const bars = bins.map((bin, i) => {
    const height = (bin.count / max) * PLOT_H;
    return s('rect', { x: left(i), y: Y0 - height, width: Math.max(1, barW), height, class: 'bar' }, s('title', {}, `${binLabel(bin)}: ${bin.count}`));
  });
  const summary = `${label}: ${bins.map((bin) => `${binLabel(bin)}: ${bin.count}`).join(', ')}`;
  return frame(summary, ...axes({ xTicks: binTicks(bins, slot), yTicks: countTicks(max), xTitle, yTitle }), ...bars);
}

/**
 * Bars of one value each (integer data, or a single bar) are labelled under their middles, every one
 * or every few. Wider bars get round values on a scale along them: for integers, under the value's
 * own place in its bar.
 */
function binTicks(bins, slot) {
  if (bins.every((bin) => bin.lo === bin.hi)) {
    const every = Math.ceil(bins.length / 8);
    return bins.flatMap((bin, i) => (i % every === 0 || i === bins.length - 1 ? [{ at: PAD.left + (i + 0.5) * slot, text: tickLabel(bin.lo) }] : []));
  }
  const first = bins[0];
  const last = bins[bins.length - 1];
  const integer = bins.every((bin) => Number.isInteger(bin.lo) && Number.isInteger(bin.hi));
  // Every bin but the last is as wide as the first; integer bin i holds lo_i … lo_i + width − 1.
  const width = bins.length > 1 ? bins[1].lo - first.lo : last.hi - first.lo;
  const at = (value) => PAD.left + ((value - first.lo + (integer ? 0.5 : 0)) / width) * slot;
  return niceTicks(first.lo, last.hi, { integer, count: 6 }).map((value) => ({ at: at(value), text: tickLabel(value) }));
}

/**
 * series: [{name, points: [{x, y}]}] with y in [0, 1] → a line chart (pass@k over k), one line per
 * series, each in its own colour class. xName titles the x axis (integer x values get integer ticks),
 * yTitle the y axis (default: the label).
 */
export function curves(series, { label, xName = 'k', yTitle = label }) {
  const points = series.flatMap((one) => one.points);
  if (points.length === 0) return h('p', { class: 'empty' }, `${label}: no data`);
  const xMin = Math.min(...points.map((p) => p.x));
  const xMax = Math.max(...points.map((p) => p.x));
  const x = (value) => PAD.left + (xMax === xMin ? PLOT_W / 2 : ((value - xMin) / (xMax - xMin)) * PLOT_W);
  const y = (value) => Y0 - value * PLOT_H;
  const marks = series.map((one, index) =>
    s(
      'g',
      { class: `series series-${index % 6}` },
      s('polyline', { points: one.points.map((p) => `${x(p.x)},${y(p.y)}`).join(' '), class: 'line' }),
      ...one.points.map((p) => s('circle', { cx: x(p.x), cy: y(p.y), r: 3, class: 'dot' }, s('title', {}, `${one.name ? `${one.name}: ` : ''}${xName}=${p.x}: ${p.y.toFixed(3)}`))),
    ),
  );
  const integer = points.every((p) => Number.isInteger(p.x));
  const round = niceTicks(xMin, xMax, { integer, count: 6 });
  // The first x (k = 1) is labelled too, unless a round tick is close to it.
  const xs = round.length > 1 && round[0] - xMin >= (round[1] - round[0]) / 2 ? [xMin, ...round] : round;
  const xTicks = xs.map((value) => ({ at: x(value), text: tickLabel(value) }));
  const yTicks = [0, 0.5, 1].map((value) => ({ at: y(value), text: tickLabel(value) }));
  const summary = `${label}: ${series.map((one) => `${one.name ? `${one.name} ` : ''}${one.points.map((p) => `${xName}=${p.x} ${p.y.toFixed(3)}`).join(', ')}`).join('; ')}`;
  return frame(summary, ...axes({ xTicks, yTicks, xTitle: xName, yTitle }), ...marks);
}

/** counts: {name: count} → horizontal bars as an HTML list; link(name) gives each label's href. Names are shown whole (wrapped, never cut). */
export function categoryBars(counts, { label, link }) {
  const entries = Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return h('p', { class: 'empty' }, 'none');
  const max = Math.max(1, ...entries.map(([, n]) => n));
  return h(
    'ul',
    { class: 'category-bars', 'aria-label': label },
    entries.map(([name, n]) =>
      h(
        'li',
        {},
        link ? h('a', { href: link(name), class: 'name' }, name) : h('span', { class: 'name' }, name),
        h('span', { class: 'track' }, h('span', { class: 'fill', style: { width: `${(n / max) * 100}%` } })),
        h('span', { class: 'n' }, String(n)),
      ),
    ),
  );
}

/**
 * bins: [{lo, hi, a, b}] (two runs counted in the same bins, see src/viewer/paired-histogram.ts) →
 * each bin's two bars side by side on one pair of axes, A in the first series colour and B in the
 * second, with axis titles; names: [A's name, B's name].
 */
export function pairedHistogram(bins, { label, names, xTitle, yTitle }) {
  if (!bins || bins.length === 0) return h('p', { class: 'empty' }, `${label}: no data`);
  const width = 480;
  const height = 220;
  const pad = { left: 50, right: 14, top: 12, bottom: 46 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const y0 = height - pad.bottom;
  const max = Math.max(1, ...bins.flatMap((bin) => [bin.a, bin.b]));
  const slot = plotW / bins.length;
  const bar = Math.max(1, (slot - 4) / 2);
  const marks = bins.flatMap((bin, i) =>
    ['a', 'b'].map((side, j) => {
      const barH = (bin[side] / max) * plotH;
      return s(
        'rect',
        { x: pad.left + i * slot + 2 + j * bar, y: y0 - barH, width: bar, height: barH, class: `pair series-${j}` },
        s('title', {}, `${names[j]}: ${bin[side]} in ${binLabel(bin)}`),
      );
    }),
  );
  // Every bin edge when they fit (at most 6 labels), else every other one.
  const step = bins.length <= 5 ? 1 : 2;
  const edges = bins.length === 1 ? [bins[0].lo] : [...bins.map((bin) => bin.lo), bins[bins.length - 1].hi];
  const xTicks = edges
    .map((value, i) => ({ value, i }))
    .filter(({ i }) => bins.length === 1 || i % step === 0 || i === edges.length - 1)
    .map(({ value, i }) => s('text', { x: bins.length === 1 ? pad.left + plotW / 2 : pad.left + i * slot, y: y0 + 14, class: 'tick', 'text-anchor': 'middle' }, tickLabel(value)));
  // Integer counts: ticks at 0, the top and (when it is a whole number) half way.
  const yValues = [...new Set([0, max, ...(max % 2 === 0 ? [max / 2] : [])])];
  const yTicks = yValues.map((value) => s('text', { x: pad.left - 6, y: y0 - (value / max) * plotH + 4, class: 'tick', 'text-anchor': 'end' }, String(value)));
  const summary = `${label}: ${bins.map((bin) => `${binLabel(bin)}: ${names[0]} ${bin.a}, ${names[1]} ${bin.b}`).join('; ')}`;
  return s(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, class: 'chart paired', role: 'img', 'aria-label': summary },
    s('title', {}, summary),
    s('line', { x1: pad.left, y1: pad.top, x2: pad.left, y2: y0, class: 'axis' }),
    s('line', { x1: pad.left, y1: y0, x2: width - pad.right, y2: y0, class: 'axis' }),
    ...xTicks,
    ...yTicks,
    s('text', { x: pad.left + plotW / 2, y: height - 8, class: 'axis-title', 'text-anchor': 'middle' }, xTitle),
    s('text', { x: 14, y: pad.top + plotH / 2, class: 'axis-title', 'text-anchor': 'middle', transform: `rotate(-90 14 ${pad.top + plotH / 2})` }, yTitle),
    ...marks,
  );
}
