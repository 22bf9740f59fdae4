// #/ — every run the viewer serves, and their overviews side by side; two runs ticked open their
// task-by-task comparison.

import { api } from '../api.js';
import { curves, histogram } from '../charts.js';
import { errorBox, h, replace } from '../dom.js';
import * as fmt from '../format.js';

const MAX_COMPARED = 6;

export function mount(root) {
  const table = h('div');
  const compare = h('div', { class: 'compare' });
  // Ticked runs in the order ticked: the first is A, the second B. Kept across refreshes.
  let selected = [];
  const compareButton = h('button', { type: 'button', id: 'compare-runs', disabled: true, onclick: () => (location.hash = fmt.href.compare(selected[0], selected[1])) }, 'Compare');
  const compareHint = h('span', { class: 'note', id: 'compare-hint' });
  const select = (id, on) => {
    selected = on ? [...selected.filter((one) => one !== id), id] : selected.filter((one) => one !== id);
    showSelection();
  };
  const showSelection = () => {
    compareButton.disabled = selected.length !== 2;
    compareHint.textContent =
      selected.length === 2 ? `A: ${selected[0]}, B: ${selected[1]}` : selected.length > 2 ? 'Tick only two runs to compare them.' : 'Tick two runs to compare them task by task.';
  };
  showSelection();
  const compareBar = h('div', { class: 'compare-bar', hidden: true }, compareButton, compareHint);
  replace(root, h('h1', {}, 'Runs'), table, compareBar, h('h2', {}, 'Side by side'), compare);
  let generation = 0;

  async function load() {
    const mine = ++generation;
    try {
      const { runs } = await api.runs();
      const shown = runs.slice(0, MAX_COMPARED);
      const overviews = await Promise.all(shown.map((run) => api.overview(run.id).catch((error) => ({ id: run.id, error }))));
      if (mine !== generation) return;
      selected = selected.filter((id) => runs.some((run) => run.id === id));
      showSelection();
      compareBar.hidden = runs.length < 2;
      replace(table, runsTable(runs, selected, select));
      replace(
        compare,
        runs.length > MAX_COMPARED ? h('p', { class: 'note' }, `The first ${MAX_COMPARED} of ${runs.length} runs.`) : null,
        overviews.length > 1 ? h('section', { class: 'card wide' }, h('h3', {}, 'pass@k'), passAtK(overviews.filter((o) => !o.error))) : null,
        h('div', { class: 'cards' }, overviews.map(card)),
      );
    } catch (error) {
      if (mine === generation) replace(table, errorBox(error));
    }
  }

  load();
  return { refresh: load, dispose: () => void ++generation };
}

function runsTable(runs, selected, select) {
  if (runs.length === 0) return h('p', { class: 'empty' }, 'No runs yet.');
  return h(
    'table',
    { class: 'data' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'compare'), ['run', 'file', 'agents', 'rollouts', 'failures', 'mean reward'].map((name) => h('th', { scope: 'col' }, name)))),
    h(
      'tbody',
      {},
      runs.map((run) =>
        h(
          'tr',
          {},
          h(
            'td',
            {},
            h('input', { type: 'checkbox', class: 'pick', 'aria-label': `compare ${run.id}`, checked: selected.includes(run.id), onchange: (event) => select(run.id, event.target.checked) }),
          ),
          h('th', { scope: 'row' }, h('a', { href: fmt.href.run(run.id) }, run.id)),
          h('td', { class: 'path' }, run.file),
          h('td', {}, run.agents.join(', ')),
          h('td', { class: 'num' }, h('a', { href: fmt.href.rollouts(run.id) }, fmt.count(run.rollouts)), indexing(run.indexing)),
          h('td', { class: 'num' }, fmt.count(run.failures)),
          h('td', { class: 'num' }, fmt.reward(run.mean_reward)),
        ),
      ),
    ),
  );
}

function passAtK(overviews) {
  const series = overviews.map((o) => ({ name: o.id, points: (o.pass_at_k ?? []).map(({ k, value }) => ({ x: k, y: value })) }));
  return h(
    'div',
    {},
    curves(series, { label: 'pass@k by run', yTitle: 'pass@k' }),
    h('ul', { class: 'legend' }, series.map((one, i) => h('li', {}, h('span', { class: `swatch series-${i % 6}` }), one.name))),
  );
}

function card(overview) {
  if (overview.error) return h('section', { class: 'card' }, h('h3', {}, overview.id), errorBox(overview.error));
  return h(
    'section',
    { class: 'card' },
    h('h3', {}, h('a', { href: fmt.href.run(overview.id) }, overview.id)),
    h(
      'dl',
      { class: 'facts' },
      fact('rollouts', fmt.count(overview.counts.rollouts)),
      fact('failures', fmt.count(overview.counts.failures)),
      fact('tasks', fmt.count(overview.counts.tasks)),
      fact('mean reward', fmt.reward(overview.mean_reward)),
      fact('model', overview.model ?? fmt.dash),
    ),
    histogram(overview.reward_histogram, { label: `${overview.id} reward histogram`, xTitle: 'reward' }),
  );
}

function fact(name, value) {
  return h('div', {}, h('dt', {}, name), h('dd', {}, value));
}

/** ` (indexing 40%)` while the run's first pass is going: the count is of the rollouts read so far. */
function indexing(progress) {
  if (!progress || progress.done) return null;
  const share = progress.bytes_total > 0 ? progress.bytes_read / progress.bytes_total : 0;
  return h('small', { class: 'indexing-share' }, ` indexing ${fmt.percent(share)}`);
}
