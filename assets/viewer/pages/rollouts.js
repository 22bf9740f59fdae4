// #/run/:run/rollouts?… — one page of rollouts at a time, filtered and sorted by the server.
// The filters live in the address (kept with history.replaceState), so a filtered view can be
// shared or reloaded; only the table body is redrawn, so focus stays in the search box.

import { api } from '../api.js';
import { errorBox, h, replace } from '../dom.js';
import * as fmt from '../format.js';
import { healthBadge, indexingNote, NO_REPORT, VERDICTS } from '../health.js';

const LIMIT = 50;
const FILTERS = ['termination', 'agent', 'task', 'failure', 'health', 'drift', 'min_reward', 'max_reward', 'q'];
const COLUMNS = [
  { key: 'id', label: 'rollout' },
  { key: 'task', label: 'task', sort: 'task' },
  { key: 'agent', label: 'agent' },
  { key: 'reward', label: 'reward', sort: 'reward', num: true },
  { key: 'termination', label: 'termination' },
  { key: 'failure_class', label: 'failure' },
  { key: 'health', label: 'health' },
  { key: 'turns', label: 'turns', sort: 'turns', num: true },
  { key: 'tokens', label: 'tokens', sort: 'tokens', num: true },
  { key: 'drift', label: 'drift', num: true },
  { key: 'drift_unchecked', label: 'unchecked', num: true, title: 'turns whose prompt the server rendered and did not return: not checked for drift' },
  { key: 'duration_ms', label: 'duration', sort: 'duration', num: true },
];

export function mount(root, { run, query }) {
  const state = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? '']));
  state.sort = query.get('sort') ?? '';
  state.offset = Math.max(0, Number.parseInt(query.get('offset') ?? '0', 10) || 0);
  let generation = 0;
  let searchTimer = null;

  const selects = {
    termination: h('select', { id: 'f-termination', name: 'termination' }),
    agent: h('select', { id: 'f-agent', name: 'agent' }),
    failure: h('select', { id: 'f-failure', name: 'failure' }),
    health: h('select', { id: 'f-health', name: 'health' }),
  };
  const inputs = {
    task: h('input', { id: 'f-task', name: 'task', type: 'text', inputmode: 'numeric', size: 6, value: state.task }),
    min_reward: h('input', { id: 'f-min-reward', name: 'min_reward', type: 'number', step: 'any', size: 6, value: state.min_reward }),
    max_reward: h('input', { id: 'f-max-reward', name: 'max_reward', type: 'number', step: 'any', size: 6, value: state.max_reward }),
    q: h('input', { id: 'f-q', name: 'q', type: 'search', placeholder: 'text in messages…', value: state.q }),
  };
  const drift = h('input', { id: 'f-drift', name: 'drift', type: 'checkbox', checked: state.drift === '1' });
  const head = h('thead');
  const body = h('tbody', { onkeydown: moveFocus });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' });
  const summary = h('p', { class: 'summary', role: 'status', 'aria-live': 'polite' });
  const errors = h('div');
  const progress = h('div');

  const form = h(
    'form',
    { class: 'filters', role: 'search', onsubmit: (event) => event.preventDefault() },
    field('termination', selects.termination),
    field('agent', selects.agent),
    field('failure', selects.failure),
    field('health', selects.health),
    field('task', inputs.task),
    field('reward ≥', inputs.min_reward),
    field('reward ≤', inputs.max_reward),
    h('label', { class: 'check', for: 'f-drift' }, drift, ' token drift only'),
    field('search', inputs.q, 'grow'),
    h('button', { type: 'button', onclick: clear }, 'Clear'),
  );
  for (const [name, select] of Object.entries(selects)) select.addEventListener('change', () => set(name, select.value));
  for (const [name, input] of Object.entries(inputs)) {
    input.addEventListener('input', () => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(() => set(name, input.value.trim()), 250);
    });
  }
  drift.addEventListener('change', () => set('drift', drift.checked ? '1' : ''));

  replace(root, h('h1', {}, `${run}: rollouts`), form, progress, errors, summary, h('div', { class: 'scroll' }, h('table', { class: 'data rollouts' }, head, body)), pager);
  drawHead();

  function set(name, value) {
    if (state[name] === value) return;
    state[name] = value;
    state.offset = 0;
    load();
  }

  function clear() {
    for (const name of FILTERS) state[name] = '';
    for (const input of Object.values(inputs)) input.value = '';
    for (const select of Object.values(selects)) select.value = '';
    drift.checked = false;
    state.offset = 0;
    load();
  }

  function params() {
    const out = {};
    for (const name of FILTERS) if (state[name] !== '') out[name] = state[name];
    if (state.sort) out.sort = state.sort;
    if (state.offset > 0) out.offset = String(state.offset);
    return out;
  }

  async function options() {
    try {
      const overview = await api.overview(run);
      fill(selects.termination, Object.keys(overview.terminations), state.termination);
      fill(selects.agent, overview.agents, state.agent);
      fill(selects.failure, Object.keys(overview.failure_classes), state.failure);
      fill(selects.health, VERDICTS, state.health, false);
      // Without a report nothing is known healthy: the filter would match nothing, so it is off and says why.
      selects.health.disabled = overview.health === null && state.health === '';
      selects.health.title = overview.health === null ? NO_REPORT : '';
      replace(progress, indexingNote(overview.indexing));
    } catch {
      for (const name of Object.keys(selects)) fill(selects[name], [], state[name]);
    }
  }

  async function load() {
    const mine = ++generation;
    const query = params();
    history.replaceState(null, '', fmt.href.rollouts(run, query));
    try {
      const page = await api.rollouts(run, { ...query, offset: String(state.offset), limit: String(LIMIT) });
      if (mine !== generation) return;
      replace(errors);
      drawBody(page.items);
      drawPager(page.total, page.offset, page.items.length);
      if (page.partial) {
        summary.append(' ', h('span', { class: 'note' }, '(the search has not read every rollout yet) '), h('button', { type: 'button', onclick: load }, 'Search further'));
      }
    } catch (error) {
      if (mine === generation) replace(errors, errorBox(error));
    }
  }

  function drawHead() {
    replace(
      head,
      h(
        'tr',
        {},
        COLUMNS.map((column) => {
          if (!column.sort) return h('th', { scope: 'col', class: column.num ? 'num' : null, title: column.title ?? null }, column.label);
          const direction = state.sort === column.sort ? 'ascending' : state.sort === `-${column.sort}` ? 'descending' : 'none';
          const next = direction === 'ascending' ? `-${column.sort}` : direction === 'descending' ? '' : column.sort;
          return h(
            'th',
            { scope: 'col', class: column.num ? 'num' : null, 'aria-sort': direction },
            h(
              'button',
              { type: 'button', class: 'sort', dataset: { sort: column.sort }, title: `Sort by ${column.label}`, onclick: () => {
                state.sort = next;
                state.offset = 0;
                drawHead();
                head.querySelector(`[data-sort="${column.sort}"]`)?.focus();
                load();
              } },
              column.label,
              h('span', { class: 'arrow', 'aria-hidden': 'true' }, direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : ''),
            ),
          );
        }),
      ),
    );
  }

  function drawBody(items) {
    if (items.length === 0) {
      replace(body, h('tr', {}, h('td', { colspan: COLUMNS.length, class: 'empty' }, 'No rollouts match.')));
      return;
    }
    replace(
      body,
      items.map((item) =>
        h(
          'tr',
          { class: item.failure_class ? 'failed' : null, dataset: { termination: item.termination, reward: item.reward ?? '' } },
          h('td', {}, h('a', { href: fmt.href.rollout(run, item.id), class: 'row-link' }, item.id)),
          h('td', {}, h('a', { href: fmt.href.group(run, String(item.task)), title: `All rollouts of task ${item.task}` }, String(item.task))),
          h('td', {}, item.agent),
          h('td', { class: 'num reward' }, rewardCell(item.reward)),
          h('td', { class: 'termination' }, item.termination),
          h('td', {}, item.failure_class ?? ''),
          h('td', { class: 'health-cell' }, healthBadge(item.health)),
          h('td', { class: 'num' }, fmt.count(item.turns)),
          h('td', { class: 'num' }, fmt.count(item.tokens)),
          h('td', { class: item.drift > 0 ? 'num warn' : 'num' }, item.drift > 0 ? String(item.drift) : ''),
          h('td', { class: item.drift_unchecked > 0 ? 'num warn unchecked' : 'num unchecked' }, item.drift_unchecked > 0 ? String(item.drift_unchecked) : ''),
          h('td', { class: 'num' }, fmt.duration(item.duration_ms)),
        ),
      ),
    );
  }

  function drawPager(total, offset, shown) {
    summary.textContent = total === 0 ? 'No rollouts match.' : `${fmt.count(offset + 1)}–${fmt.count(offset + shown)} of ${fmt.count(total)} rollouts`;
    const go = (to) => () => {
      state.offset = to;
      load();
    };
    replace(
      pager,
      h('button', { type: 'button', disabled: offset === 0, onclick: go(0) }, '« First'),
      h('button', { type: 'button', disabled: offset === 0, onclick: go(Math.max(0, offset - LIMIT)) }, '‹ Previous'),
      h('span', {}, `page ${Math.floor(offset / LIMIT) + 1} of ${Math.max(1, Math.ceil(total / LIMIT))}`),
      h('button', { type: 'button', disabled: offset + LIMIT >= total, onclick: go(offset + LIMIT) }, 'Next ›'),
      h('button', { type: 'button', disabled: offset + LIMIT >= total, onclick: go(Math.max(0, Math.ceil(total / LIMIT) - 1) * LIMIT) }, 'Last »'),
    );
  }

  options();
  load();
  return {
    refresh: () => {
      options();
      load();
    },
    dispose: () => {
      ++generation;
      clearTimeout(searchTimer);
    },
  };
}

function field(label, control, extra) {
  return h('label', { class: extra ? `field ${extra}` : 'field', for: control.id }, h('span', {}, label), control);
}

function fill(select, values, selected, sorted = true) {
  const unique = [...new Set([...values, ...(selected ? [selected] : [])])];
  const all = sorted ? unique.sort() : unique;
  replace(select, h('option', { value: '' }, 'any'), all.map((value) => h('option', { value, selected: value === selected }, value)));
  select.value = selected;
}

function rewardCell(reward) {
  if (reward === null || reward === undefined) return fmt.dash;
  const clamped = Math.max(0, Math.min(1, reward));
  return h('span', { class: 'pill', style: { '--p': String(clamped) } }, fmt.reward(reward));
}

/** ArrowUp / ArrowDown move between the rows' links, so the table works from the keyboard. */
function moveFocus(event) {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  const links = [...event.currentTarget.querySelectorAll('a.row-link')];
  const index = links.indexOf(document.activeElement);
  if (index === -1) return;
  const next = links[index + (event.key === 'ArrowDown' ? 1 : -1)];
  if (next) {
    event.preventDefault();
    next.focus();
  }
}
