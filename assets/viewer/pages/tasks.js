// #/run/:run/tasks?sort=…&offset=… — one row per task, sorted and paged by the server. By default
// the tasks whose rewards vary most come first: GRPO learns from a task only when its rollouts'
// rewards differ (a task all right or all wrong gives every rollout a zero advantage).

import { api } from '../api.js';
import { errorBox, h, replace } from '../dom.js';
import * as fmt from '../format.js';
import { pagerControls, sortableHead } from '../table-controls.js';

const LIMIT = 100;
const DEFAULT_SORT = '-reward_variance';
const COLUMNS = [
  { key: 'task', label: 'task' },
  { key: 'rollouts', label: 'rollouts', num: true, title: 'every rollout of the task, failures included' },
  { key: 'pass_at_k', label: 'pass@n', num: true, title: "pass@k with k = the task's scored rollouts (the unbiased estimator on 0/1 rewards, else the best reward)" },
  { key: 'mean_reward', label: 'mean reward', num: true, title: 'over the scored rollouts' },
  { key: 'reward_variance', label: 'reward variance', num: true, title: "population variance (÷ n) of the scored rewards: 0 means the same reward for every rollout, so no GRPO signal" },
  { key: 'mean_turns', label: 'mean turns', num: true, title: 'over every rollout, failures included' },
  { key: 'mean_tokens', label: 'mean tokens', num: true, title: 'sequence length, over every rollout, failures included' },
  { key: 'failures', label: 'failures', num: true },
];

export function mount(root, { run, query }) {
  const state = { sort: query.get('sort') || DEFAULT_SORT, offset: Math.max(0, Number.parseInt(query.get('offset') ?? '0', 10) || 0) };
  let generation = 0;
  const head = h('thead');
  const body = h('tbody');
  const summary = h('p', { class: 'summary', role: 'status', 'aria-live': 'polite' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' });
  const errors = h('div');
  replace(
    root,
    h('h1', {}, `${run}: tasks`),
    h(
      'p',
      { class: 'note' },
      'One row per task. Reward variance is the population variance (divided by n) of the task’s scored rewards: a task whose rollouts all got the same reward gives GRPO no signal. pass@n takes k = the task’s scored rollouts.',
    ),
    errors,
    summary,
    h('div', { class: 'scroll' }, h('table', { class: 'data tasks' }, head, body)),
    pager,
  );

  function sortBy(next) {
    state.sort = next;
    state.offset = 0;
    load().then(() => head.querySelector(`[data-sort="${next.replace(/^-/, '')}"]`)?.focus());
  }

  async function load() {
    const mine = ++generation;
    const shown = { ...(state.sort === DEFAULT_SORT ? {} : { sort: state.sort }), ...(state.offset > 0 ? { offset: String(state.offset) } : {}) };
    history.replaceState(null, '', fmt.href.tasks(run, shown));
    try {
      const page = await api.tasks(run, { sort: state.sort, offset: String(state.offset), limit: String(LIMIT) });
      if (mine !== generation) return;
      replace(errors);
      replace(head, sortableHead(COLUMNS, page.sort, sortBy));
      replace(body, page.items.length === 0 ? h('tr', {}, h('td', { colspan: COLUMNS.length, class: 'empty' }, 'No tasks yet.')) : page.items.map((task) => row(run, task)));
      summary.textContent = page.total === 0 ? 'No tasks yet.' : `${fmt.count(page.offset + 1)}–${fmt.count(page.offset + page.items.length)} of ${fmt.plural(page.total, 'task')}`;
      replace(
        pager,
        pagerControls(page.total, page.offset, LIMIT, (offset) => {
          state.offset = offset;
          load();
        }),
      );
    } catch (error) {
      if (mine === generation) replace(errors, errorBox(error));
    }
  }

  replace(head, sortableHead(COLUMNS, state.sort, sortBy));
  load();
  return { refresh: load, dispose: () => void ++generation };
}

function row(run, task) {
  return h(
    'tr',
    { dataset: { task: String(task.task) } },
    h('th', { scope: 'row' }, h('a', { href: fmt.href.group(run, String(task.task)), title: `All rollouts of task ${task.task}` }, String(task.task))),
    h('td', { class: 'num rollouts' }, fmt.count(task.rollouts)),
    h('td', { class: 'num pass', title: `pass@${task.scored}` }, fmt.reward(task.pass_at_k)),
    h('td', { class: 'num reward' }, fmt.reward(task.mean_reward)),
    h('td', { class: 'num variance' }, variance(task.reward_variance)),
    h('td', { class: 'num mean-turns' }, decimal(task.mean_turns)),
    h('td', { class: 'num mean-tokens' }, decimal(task.mean_tokens)),
    h('td', { class: task.failures > 0 ? 'num failures warn' : 'num failures' }, fmt.count(task.failures)),
  );
}

const decimal = (value) => (value === null || value === undefined ? fmt.dash : Number(value.toFixed(1)).toLocaleString('en-US'));

/** Four decimals: a variance is often small (0.0156 of rewards 0.5 and 0.25). */
const variance = (value) => (value === null || value === undefined ? fmt.dash : String(Number(value.toFixed(4))));
