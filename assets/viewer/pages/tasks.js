// #/run/:run/tasks?sort=…&offset=… — one row per task, sorted and paged by the server. By default
// the tasks whose rewards vary most come first: GRPO learns from a task only when its rollouts'
// rewards differ (a task all right or all wrong gives every rollout a zero advantage).

import { api } from '../api.js';
import { h, replace } from '../dom.js';
import * as fmt from '../format.js';
import { serverTable } from '../table-controls.js';

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
  const table = serverTable({
    columns: COLUMNS,
    defaultSort: DEFAULT_SORT,
    query,
    limit: LIMIT,
    fetch: (page) => api.tasks(run, page),
    href: (shown) => fmt.href.tasks(run, shown),
    total: (page) => page.total,
    rows: (page) => page.items.map((task) => row(run, task)),
    empty: 'No tasks yet.',
    noun: (n) => fmt.plural(n, 'task'),
  });
  replace(
    root,
    h('h1', {}, `${run}: tasks`),
    h(
      'p',
      { class: 'note' },
      'One row per task. Reward variance is the population variance (divided by n) of the task’s scored rewards: a task whose rollouts all got the same reward gives GRPO no signal. pass@n takes k = the task’s scored rollouts.',
    ),
    table.errors,
    table.summary,
    h('div', { class: 'scroll' }, h('table', { class: 'data tasks' }, table.head, table.body)),
    table.pager,
  );
  table.load();
  return { refresh: table.load, dispose: table.dispose };
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
