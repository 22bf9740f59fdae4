// Sortable column headers and a pager for tables sorted and paged by the server (the per-task
// table, two runs compared). A header is a button inside its <th> (Tab and Enter or Space reach
// it); the <th> carries aria-sort.

import { errorBox, h, replace } from './dom.js';
import * as fmt from './format.js';

/**
 * columns: [{key, label, title?, num?, sortable?}]; sort: 'key' or '-key' (descending); onSort(next)
 * hears the new sort. A column not sorted on sorts descending first (the largest first), but `task`,
 * which sorts ascending first; the sorted column flips.
 */
export function sortableHead(columns, sort, onSort) {
  const current = sort.replace(/^-/, '');
  const descending = sort.startsWith('-');
  return h(
    'tr',
    {},
    columns.map((column) => {
      const props = { scope: 'col', class: column.num ? 'num' : null, title: column.title ?? null };
      if (column.sortable === false) return h('th', props, column.label);
      const on = current === column.key;
      const direction = on ? (descending ? 'descending' : 'ascending') : 'none';
      const next = on ? (descending ? column.key : `-${column.key}`) : column.key === 'task' ? 'task' : `-${column.key}`;
      return h(
        'th',
        { ...props, 'aria-sort': direction },
        h(
          'button',
          { type: 'button', class: 'sort', dataset: { sort: column.key }, onclick: () => onSort(next) },
          column.label,
          h('span', { class: 'arrow', 'aria-hidden': 'true' }, direction === 'ascending' ? ' ▲' : direction === 'descending' ? ' ▼' : ''),
        ),
      );
    }),
  );
}

/** First / previous / "page i of n" / next / last; go(offset) moves. */
export function pagerControls(total, offset, limit, go) {
  const last = Math.max(0, Math.ceil(total / limit) - 1) * limit;
  return [
    h('button', { type: 'button', disabled: offset === 0, onclick: () => go(0) }, '« First'),
    h('button', { type: 'button', disabled: offset === 0, onclick: () => go(Math.max(0, offset - limit)) }, '‹ Previous'),
    h('span', {}, `page ${fmt.count(Math.floor(offset / limit) + 1)} of ${fmt.count(Math.max(1, Math.ceil(total / limit)))}`),
    h('button', { type: 'button', disabled: offset + limit >= total, onclick: () => go(offset + limit) }, 'Next ›'),
    h('button', { type: 'button', disabled: offset + limit >= total, onclick: () => go(last) }, 'Last »'),
  ];
}

/**
 * A table sorted and paged by the server, its sort and offset kept in the address. Returns the
 * elements a page places (head, body, summary, pager, errors) and load(), which fetches the page
 * again (a refresh, a new sort or offset), and dispose(). The page says:
 * - columns, defaultSort, query (the address's URLSearchParams), limit;
 * - fetch(query) → the API's answer ({sort, offset, items, …}); href(shown) → the address of a state;
 * - total(answer): all rows; rows(answer): the body's rows; empty: what an empty table says;
 *   noun(n): "n tasks" as the summary names the rows; show(answer): anything else drawn from the answer.
 */
export function serverTable({ columns, defaultSort, query, limit, fetch, href, total, rows, empty, noun, show = () => {} }) {
  const state = { sort: query.get('sort') || defaultSort, offset: Math.max(0, Number.parseInt(query.get('offset') ?? '0', 10) || 0) };
  let generation = 0;
  const head = h('thead');
  const body = h('tbody');
  const summary = h('p', { class: 'summary', role: 'status', 'aria-live': 'polite' });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' });
  const errors = h('div');

  function sortBy(next) {
    state.sort = next;
    state.offset = 0;
    load().then(() => head.querySelector(`[data-sort="${next.replace(/^-/, '')}"]`)?.focus());
  }

  async function load() {
    const mine = ++generation;
    const shown = { ...(state.sort === defaultSort ? {} : { sort: state.sort }), ...(state.offset > 0 ? { offset: String(state.offset) } : {}) };
    history.replaceState(null, '', href(shown));
    try {
      const page = await fetch({ sort: state.sort, offset: String(state.offset), limit: String(limit) });
      if (mine !== generation) return;
      replace(errors);
      show(page);
      replace(head, sortableHead(columns, page.sort, sortBy));
      replace(body, page.items.length === 0 ? h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, empty)) : rows(page));
      const count = total(page);
      summary.textContent = count === 0 ? empty : `${fmt.count(page.offset + 1)}–${fmt.count(page.offset + page.items.length)} of ${noun(count)}`;
      replace(
        pager,
        pagerControls(count, page.offset, limit, (offset) => {
          state.offset = offset;
          load();
        }),
      );
    } catch (error) {
      if (mine === generation) replace(errors, errorBox(error));
    }
  }

  replace(head, sortableHead(columns, state.sort, sortBy));
  return { head, body, summary, pager, errors, load, dispose: () => void ++generation };
}
