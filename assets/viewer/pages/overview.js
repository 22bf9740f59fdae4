// #/run/:run — one run at a glance: counts, pass@k, distributions, terminations, failures, drift.

import { api } from '../api.js';
import { categoryBars, curves, histogram } from '../charts.js';
import { h, wholePage } from '../dom.js';
import * as fmt from '../format.js';
import { indexingNote, NO_REPORT, RARE_VERDICTS, VERDICTS, verdictCount } from '../health.js';

export function mount(root, { run }) {
  return wholePage(root, run, () => api.overview(run), view);
}

function view(o) {
  const link = (query) => fmt.href.rollouts(o.id, query);
  return [
    h('h1', {}, o.id),
    h('p', { class: 'path' }, o.file),
    h('p', { class: 'run-links' }, h('a', { href: fmt.href.timeline(o.id), title: 'rollouts over time, one lane each, grouped by replica; each turn a bar' }, 'Timeline')),
    indexingNote(o.indexing),
    h(
      'dl',
      { class: 'tiles' },
      tile('rollouts', h('a', { href: link() }, fmt.count(o.counts.rollouts))),
      tile('failures', fmt.count(o.counts.failures)),
      tile('tasks', h('a', { href: fmt.href.tasks(o.id), title: 'one row per task: pass@n, mean reward, reward variance, turns, tokens' }, fmt.count(o.counts.tasks))),
      // Shown only when some prompt alone filled max_seq_len: those rollouts are in no reward figure.
      o.counts.prompt_too_long > 0 ? tile('prompt too long', h('a', { href: link({ termination: 'prompt-too-long' }) }, fmt.count(o.counts.prompt_too_long)), 'not scored') : null,
      tile('mean reward', fmt.reward(o.mean_reward)),
      tile('token drift', o.drift.rollouts > 0 ? h('a', { href: link({ drift: '1' }) }, fmt.plural(o.drift.rollouts, 'rollout')) : '0 rollouts', fmt.plural(o.drift.total, 'drift point')),
      o.drift_unchecked.rollouts > 0 ? tile('drift unchecked', fmt.plural(o.drift_unchecked.rollouts, 'rollout'), `${fmt.plural(o.drift_unchecked.total, 'turn')} whose prompt the server rendered and did not return: not known to be drift-free`) : null,
      healthTile(o.health, link),
      tile('agents', o.agents.join(', ') || fmt.dash),
      tile('model', o.model ?? fmt.dash),
    ),
    h(
      'div',
      { class: 'grid' },
      panel('pass@k', curves([{ name: '', points: o.pass_at_k.map(({ k, value }) => ({ x: k, y: value })) }], { label: 'pass@k', yTitle: 'pass@k (fraction of tasks)' })),
      panel('Reward', histogram(o.reward_histogram, { label: 'reward histogram', xTitle: 'reward' })),
      panel('Turns', histogram(o.turns_histogram, { label: 'turns per rollout', xTitle: 'turns' })),
      panel('Tokens', histogram(o.tokens_histogram, { label: 'tokens per rollout', xTitle: 'tokens' })),
      panel('Terminations', categoryBars(o.terminations, { label: 'termination kinds', link: (kind) => link({ termination: kind }) })),
      panel('Failure classes', categoryBars(o.failure_classes, { label: 'failure classes', link: (cls) => link({ failure: cls }) })),
      o.health ? panel('Health checks', categoryBars(o.health.checks, { label: 'findings per health check' })) : null,
    ),
  ];
}

/** The report's rollout verdicts, each linking to its rollouts (evaluation-only when there are some); its counts include task-level findings. */
function healthTile(health, link) {
  if (!health) return tile('health', h('span', { class: 'health none' }, NO_REPORT));
  const shown = VERDICTS.filter((verdict) => !RARE_VERDICTS.includes(verdict) || verdictCount(health, verdict) > 0);
  const parts = shown.flatMap((verdict, i) => [i > 0 ? ' · ' : null, h('a', { href: link({ health: verdict }), class: `health ${verdict}` }, `${fmt.count(verdictCount(health, verdict))} ${verdict}`)]);
  return tile('health', h('span', {}, parts), 'rollouts, as gymnast health counted them (a task-level finding counts against its rollouts)');
}

function tile(name, value, note) {
  return h('div', { class: 'tile' }, h('dt', {}, name), h('dd', {}, value, note ? h('small', {}, note) : null));
}

function panel(title, body) {
  return h('section', { class: 'card' }, h('h2', {}, title), body);
}
