// #/compare/:a/:b?sort=…&offset=… — two runs' tasks matched by task index: each task's mean reward
// in A and in B and the delta (B − A), sorted by the server (the largest loss first by default), and
// the two distributions of per-task mean reward drawn over each other.

import { api } from '../api.js';
import { pairedHistogram } from '../charts.js';
import { h, replace } from '../dom.js';
import * as fmt from '../format.js';
import { serverTable } from '../table-controls.js';

const LIMIT = 100;
const DEFAULT_SORT = 'delta';

export function mount(root, { a, b, query }) {
  const columns = [
    { key: 'task', label: 'task' },
    { key: 'rollouts_a', label: `rollouts A`, num: true, sortable: false, title: `rollouts of the task in ${a}` },
    { key: 'mean_reward_a', label: `mean reward A`, num: true, title: `${a}: mean reward of the task's scored rollouts` },
    { key: 'rollouts_b', label: `rollouts B`, num: true, sortable: false, title: `rollouts of the task in ${b}` },
    { key: 'mean_reward_b', label: `mean reward B`, num: true, title: `${b}: mean reward of the task's scored rollouts` },
    { key: 'delta', label: 'delta (B − A)', num: true, title: `${b}'s mean reward minus ${a}'s` },
  ];
  const facts = h('div');
  const chart = h('div');
  const table = serverTable({
    columns,
    defaultSort: DEFAULT_SORT,
    query,
    limit: LIMIT,
    fetch: (page) => api.compare(a, b, page),
    href: (shown) => fmt.href.compare(a, b, shown),
    total: (page) => page.matched,
    rows: (page) => page.items.map((task) => row(a, b, task)),
    empty: 'No task is in both runs.',
    noun: (n) => `${fmt.plural(n, 'task')} in both runs`,
    show: (page) => {
      replace(facts, tiles(page));
      replace(
        chart,
        h(
          'section',
          { class: 'card paired-chart' },
          h('h2', {}, 'Per-task mean reward'),
          pairedHistogram(page.distribution, { label: 'per-task mean reward over the matched tasks', names: [a, b], xTitle: 'mean reward of a task', yTitle: 'tasks' }),
          h('ul', { class: 'legend' }, [a, b].map((name, i) => h('li', {}, h('span', { class: `swatch series-${i}` }), `${i === 0 ? 'A' : 'B'}: ${name}`))),
        ),
      );
    },
  });
  replace(
    root,
    h('h1', {}, `Compare ${a} with ${b}`),
    h(
      'p',
      { class: 'note' },
      'A is ',
      h('a', { href: fmt.href.run(a) }, a),
      ', B is ',
      h('a', { href: fmt.href.run(b) }, b),
      '. Tasks are matched by task index (the same row of the input dataset), so compare runs over the same data. ',
      h('a', { href: fmt.href.compare(b, a), class: 'swap' }, 'Swap A and B'),
    ),
    table.errors,
    facts,
    chart,
    h('h2', {}, 'Tasks'),
    table.summary,
    h('div', { class: 'scroll' }, h('table', { class: 'data compare-tasks' }, table.head, table.body)),
    table.pager,
  );
  table.load();
  return { refresh: table.load, dispose: table.dispose };
}

function tiles(page) {
  return h(
    'dl',
    { class: 'tiles' },
    tile('tasks in both', fmt.count(page.matched)),
    tile(`only in A`, fmt.count(page.only_in_a), `${page.a.id}: ${fmt.plural(page.a.tasks, 'task')} in all`),
    tile(`only in B`, fmt.count(page.only_in_b), `${page.b.id}: ${fmt.plural(page.b.tasks, 'task')} in all`),
    tile('mean reward A', fmt.reward(page.mean_reward_a), 'mean of the per-task means, tasks in both'),
    tile('mean reward B', fmt.reward(page.mean_reward_b), 'mean of the per-task means, tasks in both'),
    tile('mean delta (B − A)', signed(page.mean_delta)),
  );
}

function tile(name, value, note) {
  return h('div', { class: 'tile' }, h('dt', {}, name), h('dd', {}, value, note ? h('small', {}, note) : null));
}

function row(a, b, task) {
  const direction = task.delta === null ? '' : task.delta > 0 ? ' up' : task.delta < 0 ? ' down' : '';
  return h(
    'tr',
    { dataset: { task: String(task.task) } },
    h('th', { scope: 'row' }, h('a', { href: fmt.href.compareTask(a, b, String(task.task)), title: `Task ${task.task}: the two runs' rollouts side by side` }, String(task.task))),
    h('td', { class: 'num' }, fmt.count(task.rollouts_a)),
    h('td', { class: 'num reward-a' }, fmt.reward(task.mean_reward_a)),
    h('td', { class: 'num' }, fmt.count(task.rollouts_b)),
    h('td', { class: 'num reward-b' }, fmt.reward(task.mean_reward_b)),
    h('td', { class: `num delta${direction}` }, signed(task.delta)),
  );
}

/** A delta with its sign: "+0.25", "−0.125", "0". */
function signed(value) {
  if (value === null || value === undefined) return fmt.dash;
  const text = fmt.reward(Math.abs(value));
  return value > 0 ? `+${text}` : value < 0 ? `−${text}` : '0';
}
