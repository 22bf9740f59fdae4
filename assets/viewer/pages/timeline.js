// #/run/:run/timeline — rollouts over time, one lane each, grouped by the replica that served them:
// each turn a bar for its generation, then a lighter bar for the environment's step. One SVG: each
// lane is a link to its rollout, each bar has a title; no listener per bar.

import { api } from '../api.js';
import { niceTicks } from '../charts.js';
import { h, s, wholePage } from '../dom.js';
import * as fmt from '../format.js';

const LANE = 12;
const BAR = 8;
const HEADING = 20;
const LABEL_W = 96;
const PLOT_W = 1000;
const AXIS = 22;
/** Replica colours (style.css `.series-0` …); more replicas than this reuse them in turn. */
const COLOURS = 8;
const NO_SERVER = 'no server';

export function mount(root, { run, query }) {
  const offset = Number(query.get('offset') ?? 0) || 0;
  return wholePage(root, `${run}: timeline`, () => api.timeline(run, offset > 0 ? { offset } : {}), (timeline) => view(run, timeline));
}

function view(run, t) {
  const title = h('h1', {}, `${run}: timeline`);
  if (!t.recorded) {
    return [
      title,
      h(
        'p',
        { class: 'note timeline-none' },
        `This run's rows do not record timing (started_at, and each turn's start and replica): collect it again with this gymnast or a later one to see its timeline.`,
      ),
    ];
  }
  const groups = byReplica(t.items);
  return [title, summary(run, t, groups), legend(groups), h('div', { class: 'timeline-scroll' }, chart(run, t, groups))];
}

/** Lanes by the replica of each rollout's first turn ("no server" for the embedded model, and for a rollout with no turn), replicas in name order, "no server" last. */
function byReplica(items) {
  const groups = new Map();
  for (const item of items) {
    const server = item.turns[0]?.server ?? NO_SERVER;
    if (!groups.has(server)) groups.set(server, []);
    groups.get(server).push(item);
  }
  const names = [...groups.keys()].sort((a, b) => (a === NO_SERVER) - (b === NO_SERVER) || a.localeCompare(b));
  return names.map((name, i) => ({ name, colour: i % COLOURS, items: groups.get(name) }));
}

function summary(run, t, groups) {
  const first = t.offset + 1;
  const last = t.offset + t.items.length;
  const replicas = groups.filter((group) => group.name !== NO_SERVER).length;
  const parts = [
    fmt.plural(t.items.length, 'rollout'),
    replicas > 0 ? ` on ${fmt.plural(replicas, 'replica')}` : '',
    `; the axis counts seconds from the run's first start, ${new Date(t.first_started_at).toLocaleString()}.`,
  ];
  if (t.left_out.before + t.left_out.after > 0) {
    parts.push(` Showing rollouts ${fmt.count(first)} to ${fmt.count(last)} of ${fmt.count(t.timed)} in the order they started (at most ${fmt.count(t.limit)} at once).`);
  }
  if (t.rollouts > t.timed) parts.push(` ${fmt.plural(t.rollouts - t.timed, 'rollout')} record no start and are not shown.`);
  const paging = [];
  // A bundle keeps the first window only.
  if (api.live && t.left_out.before > 0) paging.push(h('a', { href: fmt.href.timeline(run, { offset: Math.max(0, t.offset - t.limit) }) }, '← earlier'));
  if (api.live && t.left_out.after > 0) paging.push(h('a', { href: fmt.href.timeline(run, { offset: t.offset + t.items.length }) }, 'later →'));
  if (!api.live && t.left_out.after > 0) parts.push(' This copy keeps the first ones only.');
  return h('p', { class: 'meta timeline-summary' }, parts.join(''), paging.length > 0 ? [' ', ...paging.flatMap((link, i) => (i > 0 ? [' · ', link] : [link]))] : null);
}

function legend(groups) {
  return h(
    'p',
    { class: 'timeline-legend' },
    'Each lane a rollout (click it to open it): a thin line from its start to its end, and each turn a bar for its generation, then a lighter one for the environment. Lanes are grouped by the replica of their first turn: ',
    groups.map((group, i) => [i > 0 ? ', ' : null, h('span', { class: `swatch series-${group.colour}` }), ` ${group.name} (${group.items.length})`]),
  );
}

/** Milliseconds from the run's first start to the end of the latest rollout or turn shown; barsOf: each item's turnBars. */
function span(t, barsOf) {
  let end = 1;
  for (const item of t.items) {
    const start = item.started_at - t.first_started_at;
    end = Math.max(end, start + (item.duration_ms ?? 0));
    for (const bar of barsOf.get(item)) end = Math.max(end, start + bar.envEnd);
  }
  return end;
}

/** Each turn's generation and environment step in ms from its rollout's start; a turn without a recorded start follows the one before. */
function turnBars(item) {
  let at = 0;
  return item.turns.map((turn) => {
    const start = turn.start_ms ?? at;
    const genEnd = start + turn.generation_ms;
    at = genEnd + turn.env_ms;
    return { turn, start, genEnd, envEnd: at };
  });
}

function chart(run, t, groups) {
  const barsOf = new Map(t.items.map((item) => [item, turnBars(item)]));
  const totalMs = span(t, barsOf);
  const x = (ms) => LABEL_W + (ms / totalMs) * PLOT_W;
  const height = AXIS + groups.reduce((sum, group) => sum + HEADING + group.items.length * LANE, 0);
  const width = LABEL_W + PLOT_W + 16;
  const ticks = niceTicks(0, totalMs / 1000, { count: 8 });
  const marks = [
    ...ticks.map((seconds) => s('line', { x1: x(seconds * 1000), y1: AXIS - 4, x2: x(seconds * 1000), y2: height, class: 'grid' })),
    ...ticks.map((seconds) => s('text', { x: x(seconds * 1000), y: AXIS - 8, class: 'tick', 'text-anchor': 'middle' }, `${Number(seconds.toFixed(3))} s`)),
  ];
  let y = AXIS;
  for (const group of groups) {
    marks.push(s('text', { x: 2, y: y + HEADING - 6, class: `replica-heading series-${group.colour}` }, `${group.name} · ${fmt.plural(group.items.length, 'rollout')}`));
    y += HEADING;
    for (const item of group.items) {
      marks.push(lane(run, item, barsOf.get(item), group.colour, x, y, t.first_started_at));
      y += LANE;
    }
  }
  const label = `Timeline of ${fmt.plural(t.items.length, 'rollout')} over ${fmt.duration(totalMs)}, grouped by replica`;
  return s(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, width, height, class: 'timeline', role: 'img', 'aria-label': label },
    s('title', {}, label),
    ...marks,
  );
}

/** One rollout's lane: a link to it (its whole width), its label, and its turns' bars (its turnBars). */
function lane(run, item, turns, colour, x, y, origin) {
  const start = item.started_at - origin;
  const outcome = item.failure_class !== null ? `failed (${item.failure_class})` : `reward ${fmt.reward(item.reward)}`;
  const name = `rollout ${item.id} (task ${item.task}, rollout ${item.rollout})`;
  const bars = turns.flatMap(({ turn, start: turnStart, genEnd, envEnd }, index) => {
    const what = `${name}, turn ${index}: generation ${fmt.duration(turn.generation_ms)}, environment ${fmt.duration(turn.env_ms)}, server ${turn.server ?? NO_SERVER}`;
    return [
      s('rect', { x: x(start + turnStart), y: y + 2, width: Math.max(0.5, x(start + genEnd) - x(start + turnStart)), height: BAR, class: `gen series-${colour}` }, s('title', {}, what)),
      s('rect', { x: x(start + genEnd), y: y + 2, width: Math.max(0.5, x(start + envEnd) - x(start + genEnd)), height: BAR, class: `env series-${colour}` }, s('title', {}, what)),
    ];
  });
  return s(
    'a',
    { href: fmt.href.rollout(run, item.id), class: 'lane', dataset: { id: item.id } },
    s('title', {}, `${name}: ${outcome}, ${fmt.plural(item.turns.length, 'turn')}, ${fmt.duration(item.duration_ms)}`),
    s('rect', { x: 0, y, width: LABEL_W + PLOT_W, height: LANE, class: 'lane-bg' }),
    s('text', { x: 4, y: y + LANE - 3, class: 'lane-label' }, `t${item.task} r${item.rollout}`),
    // The rollout's whole span (its reset before the first turn, its record after the last) as a thin line under its bars.
    item.duration_ms === null ? null : s('line', { x1: x(start), y1: y + LANE / 2, x2: x(start + item.duration_ms), y2: y + LANE / 2, class: `span series-${colour}` }),
    ...bars,
  );
}
