// #/compare/:a/:b/task/:task — one task in two runs: run A's rollouts in the left column, run B's in
// the right, each rollout's reward and conversation, so the two runs' answers to the same prompt read
// side by side.

import { api } from '../api.js';
import { conversation } from '../conversation.js';
import { errorBox, h, replace } from '../dom.js';
import * as fmt from '../format.js';

export function mount(root, { a, b, task }) {
  let generation = 0;
  const title = h('h1', {}, `Task ${task}: ${a} and ${b}`);

  async function load() {
    const mine = ++generation;
    // A task only one run has: that side says so, the other still shows.
    const groups = await Promise.all([a, b].map((run) => api.group(run, task).catch((error) => ({ error }))));
    if (mine !== generation) return;
    replace(
      root,
      title,
      h('p', {}, h('a', { href: fmt.href.compare(a, b) }, `All tasks of ${a} and ${b}`)),
      h(
        'div',
        { class: 'run-pair' },
        groups.map((group, i) => side([a, b][i], i === 0 ? 'A' : 'B', task, group)),
      ),
    );
  }

  replace(root, title, h('p', { class: 'loading' }, 'Loading…'));
  load();
  return { refresh: load, dispose: () => void ++generation };
}

function side(run, letter, task, group) {
  const heading = h('h2', {}, `${letter}: `, h('a', { href: fmt.href.group(run, task) }, run));
  if (group.error) return h('section', { class: 'run-side', 'aria-label': `run ${letter}, ${run}` }, heading, errorBox(group.error));
  const items = [...group.items].sort((x, y) => x.rollout - y.rollout);
  const rewards = items.map((item) => item.reward).filter((reward) => reward !== null && reward !== undefined);
  const mean = rewards.length === 0 ? null : rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
  return h(
    'section',
    { class: 'run-side', 'aria-label': `run ${letter}, ${run}` },
    heading,
    h('p', { class: 'meta' }, `${fmt.plural(items.length, 'rollout')}, mean reward ${fmt.reward(mean)}`),
    items.map((item) =>
      h(
        'article',
        { class: 'card rollout-card', 'aria-label': `${run} rollout ${item.rollout}` },
        h(
          'header',
          {},
          h('a', { href: fmt.href.rollout(run, item.id) }, `rollout ${item.rollout}`),
          item.reward === null || item.reward === undefined
            ? h('span', { class: 'pill none' }, 'no reward')
            : h('span', { class: 'pill', style: { '--p': String(Math.max(0, Math.min(1, item.reward))) } }, `reward ${fmt.reward(item.reward)}`),
          h('span', { class: 'meta' }, `${item.termination}${item.failure_class ? ` · ${item.failure_class}` : ''} · ${fmt.plural(item.turns, 'turn')} · ${fmt.count(item.tokens)} tokens`),
        ),
        conversation(item.messages),
      ),
    ),
  );
}
