// #/run/:run/group/:task — every rollout of one task side by side: same prompt, different rewards.

import { api } from '../api.js';
import { conversation } from '../conversation.js';
import { h, wholePage } from '../dom.js';
import * as fmt from '../format.js';
import { findingsList, healthBadge, NO_REPORT } from '../health.js';

export function mount(root, { run, task }) {
  return wholePage(root, `Task ${task}`, () => api.group(run, task), (group) => view(run, group));
}

function view(run, group) {
  const items = [...group.items].sort((a, b) => (b.reward ?? -Infinity) - (a.reward ?? -Infinity));
  return [
    h('h1', {}, `Task ${group.task}`),
    expected(group.expected_answer),
    statistics(items.length, group.statistics),
    group.task_findings === null ? h('p', { class: 'note' }, NO_REPORT) : group.task_findings.length > 0 ? h('section', { class: 'block' }, h('h2', {}, 'Task health findings'), findingsList(group.task_findings)) : null,
    // Wrapped into as many columns as fit: every rollout is on the page without scrolling sideways.
    h(
      'div',
      { class: 'group-grid' },
      items.map((item) =>
        h(
          'section',
          { class: 'column', 'aria-label': `rollout ${item.id}` },
          h(
            'header',
            {},
            h('a', { href: fmt.href.rollout(run, item.id) }, `rollout ${item.rollout}`),
            item.reward === null || item.reward === undefined ? h('span', { class: 'pill none' }, 'no reward') : h('span', { class: 'pill', style: { '--p': String(Math.max(0, Math.min(1, item.reward))) } }, `reward ${fmt.reward(item.reward)}`),
            advantage(item.advantage, group.statistics.signal),
            healthBadge(item.health),
            h('span', { class: 'meta' }, `${item.termination}${item.failure_class ? ` · ${item.failure_class}` : ''} · ${fmt.plural(item.turns, 'turn')} · ${fmt.plural(item.tokens, 'token')}`),
          ),
          conversation(item.messages),
        ),
      ),
    ),
  ];
}

function expected(answer) {
  if (answer === null || answer === undefined) return h('p', { class: 'expected none' }, 'No expected answer recorded in the task’s row.');
  const text = typeof answer.value === 'string' ? answer.value : JSON.stringify(answer.value);
  return h('p', { class: 'expected' }, h('span', { class: 'label' }, `Expected answer (${answer.field}): `), h('code', {}, text));
}

/** The group as GRPO sees it: mean, population std, and whether the rewards differ at all. */
function statistics(n, stats) {
  return h(
    'dl',
    { class: 'tiles group-stats' },
    tile('rollouts', fmt.count(n), stats.scored < n ? `${fmt.count(stats.scored)} with a reward; failures have none and no advantage` : null),
    tile('mean reward', fmt.reward(stats.mean)),
    tile('std', fmt.reward(stats.std), 'population (over n), as GRPO normalises'),
    tile(
      'advantage',
      stats.signal ? h('span', { class: 'formula' }, '(reward − mean) / std') : 'no signal',
      stats.signal ? 'per rollout, as the GRPO trainer computes it' : stats.scored > 0 ? 'every reward is the same: every advantage is 0' : 'no rollout has a reward',
    ),
  );
}

function advantage(value, signal) {
  if (value === null || value === undefined) return h('span', { class: 'advantage none', title: 'no reward, no advantage' }, 'no advantage');
  const text = signal ? `${value > 0 ? '+' : value < 0 ? '−' : ''}${Math.abs(value).toFixed(3)}` : '0 (no signal)';
  return h('span', { class: `advantage ${value > 0 ? 'up' : value < 0 ? 'down' : 'zero'}`, title: '(reward − group mean) / group std' }, `advantage ${text}`);
}

function tile(name, value, note) {
  return h('div', { class: 'tile' }, h('dt', {}, name), h('dd', {}, value, note ? h('small', {}, note) : null));
}
