/** One step's point on the plot: its training reward (none before the first step), and the held-out accuracy on the steps that measured it. */
export interface RewardPoint {
  step: number;
  reward?: number;
  /** Greedy. */
  heldOut?: number;
  /** Sampled as in training (pass@1). */
  heldOutSampled?: number;
}

const WIDTH = 640;
const HEIGHT = 360;
const MARGIN = { left: 56, right: 16, top: 36, bottom: 44 };

/**
 * Reward against step as a standalone SVG: the mean training reward of each step's rollouts, and the
 * held-out accuracy where it was measured. Rewards are taken to lie in [0, 1], as the arithmetic
 * environments give them; the y axis stretches to fit anything beyond.
 */
export function rewardPlotSvg(points: readonly RewardPoint[], title = 'reward against step'): string {
  const lastStep = Math.max(1, ...points.map((point) => point.step));
  const values = points.flatMap((point) => [point.reward ?? 0, point.heldOut ?? 0, point.heldOutSampled ?? 0]);
  const [low, high] = [Math.min(0, ...values), Math.max(1, ...values)];
  const x = (step: number) => MARGIN.left + (step / lastStep) * (WIDTH - MARGIN.left - MARGIN.right);
  const y = (value: number) => HEIGHT - MARGIN.bottom - ((value - low) / (high - low)) * (HEIGHT - MARGIN.top - MARGIN.bottom);
  const line = (series: readonly [number, number][], color: string) =>
    series.length === 0
      ? ''
      : `<polyline fill="none" stroke="${color}" stroke-width="2" points="${series.map(([s, v]) => `${x(s).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}"/>` +
        series.map(([s, v]) => `<circle cx="${x(s).toFixed(1)}" cy="${y(v).toFixed(1)}" r="2.5" fill="${color}"/>`).join('');
  const series = (value: (point: RewardPoint) => number | undefined) =>
    points.flatMap((point): [number, number][] => {
      const v = value(point);
      return v === undefined ? [] : [[point.step, v]];
    });
  const rewards = series((point) => point.reward);
  const heldOut = series((point) => point.heldOut);
  const heldOutSampled = series((point) => point.heldOutSampled);
  const yTicks = [0, 0.25, 0.5, 0.75, 1].map((fraction) => low + fraction * (high - low));
  const xTicks = Array.from(new Set([0, Math.round(lastStep / 4), Math.round(lastStep / 2), Math.round((3 * lastStep) / 4), lastStep]));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" font-size="14">${escapeText(title)}</text>`,
    ...yTicks.map(
      (value) =>
        `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" stroke="#ddd"/>` +
        `<text x="${MARGIN.left - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${value.toFixed(2)}</text>`,
    ),
    ...xTicks.map((step) => `<text x="${x(step).toFixed(1)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle">${step}</text>`),
    `<text x="${WIDTH / 2}" y="${HEIGHT - 8}" text-anchor="middle">step</text>`,
    line(rewards, '#1f77b4'),
    line(heldOut, '#d62728'),
    line(heldOutSampled, '#2ca02c'),
    `<text x="${MARGIN.left + 8}" y="${MARGIN.top + 12}" fill="#1f77b4">training reward (mean of the step's rollouts)</text>`,
    `<text x="${MARGIN.left + 8}" y="${MARGIN.top + 28}" fill="#d62728">held-out accuracy (greedy)</text>`,
    heldOutSampled.length === 0 ? '' : `<text x="${MARGIN.left + 8}" y="${MARGIN.top + 44}" fill="#2ca02c">held-out pass@1 (sampled as in training)</text>`,
    '</svg>',
    '',
  ].join('\n');
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
