// Inline SVG charts: histograms, curves and category bars. Each chart has a text alternative
// (aria-label plus a <title> per mark) so the numbers are readable without the picture.

import { h, s } from './dom.js';

const W = 320;
const H = 160;
const PAD = { left: 36, right: 10, top: 10, bottom: 28 };

function tickLabel(value) {
  if (!Number.isFinite(value)) return '';
  if (Math.abs(value) >= 1000) return `${Math.round(value / 100) / 10}k`;
  return String(Math.round(value * 100) / 100);
}

function frame(label, ...children) {
  return s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': label }, s('title', {}, label), ...children);
}

function axes(yMax, xTicks) {
  const x0 = PAD.left;
  const y0 = H - PAD.bottom;
  return [
    s('line', { x1: x0, y1: PAD.top, x2: x0, y2: y0, class: 'axis' }),
    s('line', { x1: x0, y1: y0, x2: W - PAD.right, y2: y0, class: 'axis' }),
    s('text', { x: x0 - 4, y: PAD.top + 4, class: 'tick', 'text-anchor': 'end' }, tickLabel(yMax)),
    s('text', { x: x0 - 4, y: y0, class: 'tick', 'text-anchor': 'end' }, '0'),
    ...xTicks.map(({ x, text }) => s('text', { x, y: y0 + 14, class: 'tick', 'text-anchor': 'middle' }, text)),
  ];
}

/** A bar's values: one value when `lo === hi` (an integer bar of one value), else "lo to hi". */
const binLabel = (bin) => (bin.lo === bin.hi ? tickLabel(bin.lo) : `${tickLabel(bin.lo)} to ${tickLabel(bin.hi)}`);

/** bins: [{lo, hi, count}] (see src/viewer/histogram.ts) → a bar chart. */
export function histogram(bins, { label }) {
  if (!bins || bins.length === 0) return h('p', { class: 'empty' }, `${label}: no data`);
  const max = Math.max(1, ...bins.map((bin) => bin.count));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const barW = plotW / bins.length;
  const bars = bins.map((bin, i) => {
    const height = (bin.count / max) * plotH;
    return s(
      'rect',
      { x: PAD.left + i * barW + 1, y: H - PAD.bottom - height, width: Math.max(1, barW - 2), height, class: 'bar' },
      s('title', {}, `${binLabel(bin)}: ${bin.count}`),
    );
  });
  const first = bins[0];
  const last = bins[bins.length - 1];
  const ticks = [
    { x: PAD.left, text: tickLabel(first.lo) },
    { x: W - PAD.right, text: tickLabel(last.hi) },
  ];
  if (bins.length > 2) ticks.push({ x: PAD.left + plotW / 2, text: tickLabel((first.lo + last.hi) / 2) });
  const summary = `${label}: ${bins.map((bin) => `${binLabel(bin)}: ${bin.count}`).join(', ')}`;
  return frame(summary, ...axes(max, ticks), ...bars);
}

/**
 * series: [{name, points: [{x, y}]}] with y in [0, 1] → a line chart (pass@k over k), one line per
 * series, each in its own colour class.
 */
export function curves(series, { label, xName = 'k' }) {
  const points = series.flatMap((one) => one.points);
  if (points.length === 0) return h('p', { class: 'empty' }, `${label}: no data`);
  const xMin = Math.min(...points.map((p) => p.x));
  const xMax = Math.max(...points.map((p) => p.x));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (value) => PAD.left + (xMax === xMin ? plotW / 2 : ((value - xMin) / (xMax - xMin)) * plotW);
  const y = (value) => H - PAD.bottom - value * plotH;
  const marks = series.map((one, index) =>
    s(
      'g',
      { class: `series series-${index % 6}` },
      s('polyline', { points: one.points.map((p) => `${x(p.x)},${y(p.y)}`).join(' '), class: 'line' }),
      ...one.points.map((p) => s('circle', { cx: x(p.x), cy: y(p.y), r: 3, class: 'dot' }, s('title', {}, `${one.name ? `${one.name}: ` : ''}${xName}=${p.x}: ${p.y.toFixed(3)}`))),
    ),
  );
  const xs = [...new Set(points.map((p) => p.x))].sort((a, b) => a - b);
  const shown = xs.length <= 8 ? xs : [...new Set([xMin, xs[Math.floor(xs.length / 2)], xMax])];
  const ticks = shown.map((value) => ({ x: x(value), text: xs.length <= 8 && value !== xMin ? String(value) : `${xName}=${value}` }));
  const summary = `${label}: ${series.map((one) => `${one.name ? `${one.name} ` : ''}${one.points.map((p) => `${xName}=${p.x} ${p.y.toFixed(3)}`).join(', ')}`).join('; ')}`;
  return frame(summary, s('line', { x1: PAD.left, y1: y(0.5), x2: W - PAD.right, y2: y(0.5), class: 'grid' }), ...axes(1, ticks), ...marks);
}

/** counts: {name: count} → horizontal bars as an HTML list; link(name) gives each label's href. */
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
