// The viewer's JSON API (served by `gymnast view`, or read from a bundle's data files when there is
// no server). Errors come back as {error: {message}}.

import { bundle, bundledAnswer } from './bundle-data.js';
import { queryString } from './format.js';

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

async function getJson(path, signal) {
  if (bundle) {
    const { status, body } = await bundledAnswer(path);
    if (status !== 200) throw new ApiError(body.error.message, status);
    return body;
  }
  const response = await fetch(path, { signal, headers: { accept: 'application/json' } });
  let body;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(`GET ${path}: ${response.status} ${response.statusText}, not JSON`, response.status);
  }
  if (!response.ok) throw new ApiError(body?.error?.message ?? `GET ${path}: ${response.status} ${response.statusText}`, response.status);
  return body;
}

const run = (id) => `/api/runs/${encodeURIComponent(id)}`;

export const api = {
  /** False in a bundle: a static copy, nothing to follow. */
  live: bundle === null,
  /** When a bundle was written (an ISO date); null when a server answers. */
  written: bundle?.written ?? null,
  runs: (signal) => getJson('/api/runs', signal),
  overview: (id, signal) => getJson(`${run(id)}/overview`, signal),
  /** query: URLSearchParams or a plain object of the list filters (offset, limit, sort, termination, …). */
  rollouts: (id, query, signal) => getJson(`${run(id)}/rollouts${queryString(query)}`, signal),
  rollout: (id, rolloutId, signal) => getJson(`${run(id)}/rollouts/${encodeURIComponent(rolloutId)}`, signal),
  group: (id, task, signal) => getJson(`${run(id)}/groups/${encodeURIComponent(task)}`, signal),
  /** query: {sort, offset, limit}; each task's pass@n, mean reward, reward variance, mean turns and tokens, failures. */
  tasks: (id, query, signal) => getJson(`${run(id)}/tasks${queryString(query)}`, signal),
  /** query: {offset, limit}; the run's rollouts in the order they started, each turn's times and replica (`recorded: false` when its rows do not say). */
  timeline: (id, query, signal) => getJson(`${run(id)}/timeline${queryString(query)}`, signal),
  /** Two runs' tasks matched by index; query: {sort, offset, limit}. */
  compare: (a, b, query, signal) => getJson(`/api/compare/${encodeURIComponent(a)}/${encodeURIComponent(b)}${queryString(query)}`, signal),
};
