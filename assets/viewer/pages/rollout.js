// #/run/:run/rollout/:id — one rollout: what happened (summary, reward components, turns), the
// conversation, and the exact token sequence with logprobs, loss mask and drift points.

import { api } from '../api.js';
import { conversation } from '../conversation.js';
import { errorBox, h, replace } from '../dom.js';
import * as fmt from '../format.js';
import { findingsList, healthBadge, NO_REPORT } from '../health.js';
import { driftMarks, tokenView } from '../tokens.js';

export function mount(root, { run, id }) {
  let live = true;
  replace(root, h('h1', {}, `Rollout ${id}`), h('p', { class: 'loading' }, 'Loading…'));
  api.rollout(run, id).then(
    (detail) => live && replace(root, view(run, detail)),
    (error) => live && replace(root, h('h1', {}, `Rollout ${id}`), errorBox(error)),
  );
  return { dispose: () => void (live = false) };
}

function view(run, { summary, row, tokens, drift_points: drift, health }) {
  return [
    h('h1', {}, `Rollout ${summary.id}`),
    h('p', {}, h('a', { href: fmt.href.group(run, String(summary.task)) }, `All rollouts of task ${summary.task}`)),
    h(
      'dl',
      { class: 'tiles' },
      tile('reward', fmt.reward(summary.reward)),
      tile('termination', summary.termination, row.termination?.detail),
      summary.failure_class ? tile('failure', summary.failure_class) : null,
      tile('agent', summary.agent),
      tile('task / rollout', `${summary.task} / ${summary.rollout}`),
      tile('turns', fmt.count(summary.turns)),
      tile('tokens', fmt.count(summary.tokens)),
      tile('drift points', String(summary.drift)),
      summary.drift_unchecked > 0 ? tile('drift unchecked', `${fmt.plural(summary.drift_unchecked, 'turn')}`, 'the server rendered the prompt and did not return it: not known to be drift-free') : null,
      tile('duration', fmt.duration(summary.duration_ms)),
      tile('health', healthBadge(health?.verdict ?? null), health ? null : NO_REPORT),
    ),
    health && health.findings.length > 0 ? section('Health findings', findingsList(health.findings)) : null,
    row.reward_components && Object.keys(row.reward_components).length > 0 ? section('Reward components', components(row.reward_components)) : null,
    Array.isArray(row.turns) && row.turns.length > 0 ? section('Turns', turnsTable(row.turns)) : null,
    section('Conversation', conversation(row.messages)),
    section('Tokens', tokenView(tokens, driftMarks(row.turns, tokens, drift))),
    h('details', { class: 'raw' }, h('summary', {}, 'The row as JSON'), h('pre', {}, JSON.stringify(row, null, 2))),
  ];
}

function tile(name, value, note) {
  return h('div', { class: 'tile' }, h('dt', {}, name), h('dd', {}, value, note ? h('small', {}, note) : null));
}

function section(title, body) {
  return h('section', { class: 'block' }, h('h2', {}, title), body);
}

function components(values) {
  return h(
    'table',
    { class: 'data narrow' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'component'), h('th', { scope: 'col', class: 'num' }, 'value'))),
    h('tbody', {}, Object.entries(values).map(([name, value]) => h('tr', {}, h('th', { scope: 'row' }, name), h('td', { class: 'num' }, typeof value === 'number' ? fmt.reward(value) : JSON.stringify(value))))),
  );
}

function turnDuration(turn) {
  if (typeof turn.duration_ms === 'number') return turn.duration_ms;
  const timing = turn.timing;
  if (timing && typeof timing === 'object') return Object.values(timing).reduce((sum, v) => sum + (typeof v === 'number' ? v : 0), 0);
  return null;
}

function turnsTable(turns) {
  const head = ['turn', 'prompt tokens', 'generated', 'observation', 'finish', 'generation', 'environment', 'total', 'reward', 'token drift'];
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { class: 'data' },
      h('thead', {}, h('tr', {}, head.map((name, i) => h('th', { scope: 'col', class: i === 0 || i === 4 || i === 9 ? null : 'num' }, name)))),
      h(
        'tbody',
        {},
        turns.map((turn, i) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, String(turn.index ?? i)),
            h('td', { class: 'num' }, fmt.count(turn.prompt_tokens)),
            h('td', { class: 'num' }, fmt.count(turn.generated_tokens)),
            h('td', { class: 'num' }, fmt.count(turn.env_tokens)),
            h('td', {}, turn.finish_reason?.unified ?? turn.finish_reason?.raw ?? (typeof turn.finish_reason === 'string' ? turn.finish_reason : fmt.dash)),
            h('td', { class: 'num' }, fmt.duration(turn.timing?.generation_ms)),
            h('td', { class: 'num' }, fmt.duration(turn.timing?.env_ms)),
            h('td', { class: 'num' }, fmt.duration(turnDuration(turn))),
            h('td', { class: 'num' }, turn.reward === undefined ? fmt.dash : fmt.reward(turn.reward)),
            h('td', { class: turn.token_drift || turn.drift_unchecked ? 'warn' : null }, driftText(turn)),
          ),
        ),
      ),
    ),
  );
}

/** A turn's drift, and whether its prompt could be checked at all (the server may render it without returning it). */
function driftText({ token_drift: drift, drift_unchecked: unchecked }) {
  const parts = [];
  if (drift) parts.push(`${drift.source}, at ${drift.source === 'server' ? 'token' : 'character'} ${drift.at}: ${JSON.stringify(drift.ledger)} vs ${JSON.stringify(drift.template)}`);
  if (unchecked) parts.push('unchecked: the server did not return the prompt it rendered');
  return parts.join('; ');
}
