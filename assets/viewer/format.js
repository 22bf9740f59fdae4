// Number and link formatting shared by the pages.

export const dash = '—';

export function reward(value) {
  return value === null || value === undefined ? dash : String(Number(Number(value).toFixed(3)));
}

export function count(value) {
  return value === null || value === undefined ? dash : Number(value).toLocaleString('en-US');
}

/** plural(1, 'rollout') → '1 rollout', plural(3, 'rollout') → '3 rollouts'. */
export function plural(n, word) {
  return `${count(n)} ${n === 1 ? word : `${word}s`}`;
}

export function percent(value) {
  return value === null || value === undefined ? dash : `${(value * 100).toFixed(1)}%`;
}

export function duration(ms) {
  if (ms === null || ms === undefined) return dash;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** '?a=1&b=2' for a query (URLSearchParams or a plain object), '' for none or an empty one. */
export function queryString(query) {
  const text = String(new URLSearchParams(query ?? {}));
  return text === '' ? '' : `?${text}`;
}

const enc = encodeURIComponent;
export const href = {
  runs: () => '#/',
  run: (run) => `#/run/${enc(run)}`,
  rollouts: (run, query) => `#/run/${enc(run)}/rollouts${queryString(query)}`,
  rollout: (run, id) => `#/run/${enc(run)}/rollout/${enc(id)}`,
  group: (run, task) => `#/run/${enc(run)}/group/${enc(task)}`,
  tasks: (run, query) => `#/run/${enc(run)}/tasks${queryString(query)}`,
  timeline: (run, query) => `#/run/${enc(run)}/timeline${queryString(query)}`,
  compare: (a, b, query) => `#/compare/${enc(a)}/${enc(b)}${queryString(query)}`,
  compareTask: (a, b, task) => `#/compare/${enc(a)}/${enc(b)}/task/${enc(task)}`,
};
