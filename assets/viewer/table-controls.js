// Sortable column headers and a pager for tables sorted and paged by the server (the per-task
// table, two runs compared). A header is a button inside its <th> (Tab and Enter or Space reach
// it); the <th> carries aria-sort.

import { h } from './dom.js';
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
