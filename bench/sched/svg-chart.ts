/** One line of a chart: its label, colour and points (x, y). */
export interface Series {
  label: string;
  color: string;
  points: readonly (readonly [number, number])[];
}

/** A vertical line across a panel, labelled (where a drain tail starts, an outage …). */
export interface Marker {
  x: number;
  label: string;
}

/** One panel of a line chart: its title, lines and markers, on the chart's shared axes. */
export interface Panel {
  title: string;
  series: readonly Series[];
  markers?: readonly Marker[];
}

const WIDTH = 760;
const PANEL_HEIGHT = 170;
const MARGIN = { left: 56, right: 16, top: 40, bottom: 40 };

const escapeXml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const round = (value: number) => Math.round(value * 10) / 10;

/** Panels stacked on one x axis (0 to `xMax`) and one y axis (0 to `yMax`), as a standalone SVG. */
export function lineChart(options: {
  title: string;
  panels: readonly Panel[];
  xMax: number;
  xLabel: string;
  yMax: number;
  yLabel: string;
  yTicks: readonly number[];
  yFormat: (value: number) => string;
}): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const height = MARGIN.top + options.panels.length * (PANEL_HEIGHT + MARGIN.bottom) + 16;
  const parts = [header(WIDTH, height), `<text x="${MARGIN.left}" y="22" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`];
  options.panels.forEach((panel, index) => {
    const top = MARGIN.top + index * (PANEL_HEIGHT + MARGIN.bottom) + 14;
    const x = (value: number) => round(MARGIN.left + (value / options.xMax) * plotWidth);
    const y = (value: number) => round(top + PANEL_HEIGHT - (Math.min(value, options.yMax) / options.yMax) * PANEL_HEIGHT);
    parts.push(`<text x="${MARGIN.left}" y="${top - 5}" font-size="12">${escapeXml(panel.title)}</text>`);
    parts.push(`<rect x="${MARGIN.left}" y="${top}" width="${plotWidth}" height="${PANEL_HEIGHT}" fill="#fafafa" stroke="#ccc"/>`);
    for (const tick of options.yTicks)
      parts.push(
        `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(tick)}" y2="${y(tick)}" stroke="#e4e4e4"/>`,
        `<text x="${MARGIN.left - 6}" y="${y(tick) + 4}" font-size="10" text-anchor="end">${escapeXml(options.yFormat(tick))}</text>`,
      );
    for (const tick of xTicks(options.xMax))
      parts.push(`<text x="${x(tick)}" y="${top + PANEL_HEIGHT + 13}" font-size="10" text-anchor="middle">${tick}</text>`);
    for (const marker of panel.markers ?? [])
      parts.push(
        `<line x1="${x(marker.x)}" x2="${x(marker.x)}" y1="${top}" y2="${top + PANEL_HEIGHT}" stroke="#888" stroke-dasharray="4 3"/>`,
        `<text x="${x(marker.x) + 4}" y="${top + 12}" font-size="10" fill="#555">${escapeXml(marker.label)}</text>`,
      );
    for (const series of panel.series) {
      const path = series.points.map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${x(px)},${y(py)}`).join('');
      parts.push(`<path d="${path}" fill="none" stroke="${series.color}" stroke-width="1.5"/>`);
    }
    let legend = MARGIN.left + plotWidth;
    for (const series of [...panel.series].reverse()) {
      legend -= 8 + series.label.length * 6;
      parts.push(`<text x="${legend}" y="${top - 5}" font-size="11" fill="${series.color}">${escapeXml(series.label)}</text>`);
    }
  });
  const bottom = height - 10;
  parts.push(`<text x="${MARGIN.left + plotWidth / 2}" y="${bottom}" font-size="11" text-anchor="middle">${escapeXml(options.xLabel)}</text>`);
  parts.push(
    `<text x="14" y="${MARGIN.top + PANEL_HEIGHT / 2 + 14}" font-size="11" transform="rotate(-90 14 ${MARGIN.top + PANEL_HEIGHT / 2 + 14})" text-anchor="middle">${escapeXml(options.yLabel)}</text>`,
  );
  parts.push('</svg>\n');
  return parts.join('\n');
}

/** One group of bars: a label under it and a bar per measure. */
export interface BarGroup {
  label: string;
  values: readonly { value: number; text: string }[];
}

/** Grouped bars, one colour per measure (0 to `yMax`), as a standalone SVG. */
export function barChart(options: {
  title: string;
  measures: readonly { label: string; color: string }[];
  groups: readonly BarGroup[];
  yMax: number;
  yTicks: readonly number[];
  yFormat: (value: number) => string;
}): string {
  const height = 300;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const top = 56;
  const plotHeight = height - top - 48;
  const y = (value: number) => round(top + plotHeight - (Math.min(value, options.yMax) / options.yMax) * plotHeight);
  const parts = [header(WIDTH, height), `<text x="${MARGIN.left}" y="22" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`];
  let legend = MARGIN.left;
  for (const measure of options.measures) {
    parts.push(
      `<rect x="${legend}" y="32" width="10" height="10" fill="${measure.color}"/>`,
      `<text x="${legend + 14}" y="41" font-size="11">${escapeXml(measure.label)}</text>`,
    );
    legend += 24 + measure.label.length * 6;
  }
  parts.push(`<rect x="${MARGIN.left}" y="${top}" width="${plotWidth}" height="${plotHeight}" fill="#fafafa" stroke="#ccc"/>`);
  for (const tick of options.yTicks)
    parts.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(tick)}" y2="${y(tick)}" stroke="#e4e4e4"/>`,
      `<text x="${MARGIN.left - 6}" y="${y(tick) + 4}" font-size="10" text-anchor="end">${escapeXml(options.yFormat(tick))}</text>`,
    );
  const groupWidth = plotWidth / options.groups.length;
  const barWidth = Math.min(60, (groupWidth * 0.7) / options.measures.length);
  options.groups.forEach((group, index) => {
    const start = MARGIN.left + index * groupWidth + (groupWidth - barWidth * options.measures.length) / 2;
    group.values.forEach(({ value, text }, measure) => {
      const x = round(start + measure * barWidth);
      parts.push(
        `<rect x="${x}" y="${y(value)}" width="${round(barWidth - 4)}" height="${round(top + plotHeight - y(value))}" fill="${options.measures[measure]!.color}"/>`,
        `<text x="${round(x + (barWidth - 4) / 2)}" y="${y(value) - 4}" font-size="10" text-anchor="middle">${escapeXml(text)}</text>`,
      );
    });
    parts.push(
      `<text x="${round(MARGIN.left + (index + 0.5) * groupWidth)}" y="${top + plotHeight + 18}" font-size="12" text-anchor="middle">${escapeXml(group.label)}</text>`,
    );
  });
  parts.push('</svg>\n');
  return parts.join('\n');
}

function header(width: number, height: number): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif">\n<rect width="${width}" height="${height}" fill="white"/>`;
}

/** About eight round ticks from 0 to `max`. */
function xTicks(max: number): number[] {
  const raw = max / 8;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= raw)!;
  return Array.from({ length: Math.floor(max / step) + 1 }, (_, i) => i * step);
}
