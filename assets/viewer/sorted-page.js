// A sorted page of a whole table without a server (a bundle): the tasks of a run, or two runs' tasks
// compared, sorted and paged as the server does (src/viewer/task-page.ts, sortedBy; a spec holds the
// two to the same answers).

import { BadQuery } from './rollout-filter.js';

/**
 * rows: every row (each with a `task`); keys: the sortable columns; → {sort, offset, items}, or a
 * BadQuery naming the parameter the server would refuse.
 */
export function sortedPage(rows, search, keys, defaultSort) {
  const given = {};
  for (const [name, value] of search) if (value !== '') given[name] = value;
  const offset = integer(given, 'offset', 0, 0, 2 ** 32);
  const limit = integer(given, 'limit', 100, 1, 1000);
  const sort = given.sort ?? defaultSort;
  if (!keys.includes(sort.replace(/^-/, ''))) throw new BadQuery('sort', `expected one of ${keys.join(', ')}, each or with a leading -`);
  return { sort, offset, items: sortedBy([...rows], sort).slice(offset, offset + limit) };
}

function integer(given, name, fallback, min, max) {
  if (given[name] === undefined) return fallback;
  const value = Number(given[name]);
  if (!Number.isInteger(value) || value < min || value > max) throw new BadQuery(name, `expected an integer from ${min} to ${max}`);
  return value;
}

/** By `sort` (a key, `-key` descending); a null value last either way, ties in task order. */
function sortedBy(rows, sort) {
  const descending = sort.startsWith('-');
  const key = descending ? sort.slice(1) : sort;
  const sign = descending ? -1 : 1;
  return rows.sort((a, b) => {
    const x = a[key];
    const y = b[key];
    if (x === null || y === null) return x === y ? a.task - b.task : x === null ? 1 : -1;
    return sign * (x - y) || a.task - b.task;
  });
}
