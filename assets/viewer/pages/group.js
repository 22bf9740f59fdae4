// #/run/:run/group/:task — every rollout of one task side by side: same prompt, different rewards.

import { api } from '../api.js';
import { conversation } from '../conversation.js';
import { errorBox, h, replace } from '../dom.js';
import * as fmt from '../format.js';
import { findingsList, healthBadge, NO_REPORT } from '../health.js';

export function mount(root, { run, task }) {
  let generation = 0;

  async function load() {
    const mine = ++generation;
    try {
      const group = await api.group(run, task);
      if (mine === generation) replace(root, view(run, group));
    } catch (error) {
      if (mine === generation) replace(root, h('h1', {}, `Task ${task}`), errorBox(error));
    }
  }

  replace(root, h('h1', {}, `Task ${task}`), h('p', { class: 'loading' }, 'Loading…'));
  load();
  return { refresh: load, dispose: () => void ++generation };
}

function view(run, group) {
  const items = [...group.items].sort((a, b) => (b.reward ?? -Infinity) - (a.reward ?? -Infinity));
  const rewards = items.map((item) => item.reward).filter((r) => r !== null && r !== undefined);
  const spread = rewards.length > 0 ? `rewards ${fmt.reward(Math.min(...rewards))} to ${fmt.reward(Math.max(...rewards))}` : 'no rewards';
  return [
    h('h1', {}, `Task ${group.task}`),
    h('p', {}, `${items.length} rollouts, ${spread}.`),
    group.task_findings === null ? h('p', { class: 'note' }, NO_REPORT) : group.task_findings.length > 0 ? h('section', { class: 'block' }, h('h2', {}, 'Task health findings'), findingsList(group.task_findings)) : null,
    h(
      'div',
      { class: 'side-by-side' },
      items.map((item) =>
        h(
          'section',
          { class: 'column', 'aria-label': `rollout ${item.id}` },
          h(
            'header',
            {},
            h('a', { href: fmt.href.rollout(run, item.id) }, `rollout ${item.rollout}`),
            item.reward === null || item.reward === undefined ? h('span', { class: 'pill none' }, 'no reward') : h('span', { class: 'pill', style: { '--p': String(Math.max(0, Math.min(1, item.reward))) } }, `reward ${fmt.reward(item.reward)}`),
            healthBadge(item.health),
            h('span', { class: 'meta' }, `${item.termination}${item.failure_class ? ` · ${item.failure_class}` : ''} · ${fmt.count(item.turns)} turns · ${fmt.count(item.tokens)} tokens`),
          ),
          conversation(item.messages),
        ),
      ),
    ),
  ];
}
