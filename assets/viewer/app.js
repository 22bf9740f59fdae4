// gymnast view: hash routing, one page at a time, and live refresh while a run grows.
//
// A page module exports mount(root, params) → {refresh?(), dispose?()}. The app polls /api/runs
// every 2 s while the tab is visible; when the version of a run on screen changes, it calls the
// page's refresh(), which updates in place (filters, focus and scroll are kept).

import { api } from './api.js';
import { errorBox, h, replace } from './dom.js';
import * as runsPage from './pages/runs.js';
import * as overviewPage from './pages/overview.js';
import * as rolloutsPage from './pages/rollouts.js';
import * as rolloutPage from './pages/rollout.js';
import * as groupPage from './pages/group.js';
import * as tasksPage from './pages/tasks.js';
import * as comparePage from './pages/compare.js';
import * as compareTaskPage from './pages/compare-task.js';
import * as timelinePage from './pages/timeline.js';

const POLL_MS = 2000;

const routes = [
  { pattern: /^\/?$/, page: runsPage, params: () => ({}) },
  { pattern: /^\/run\/([^/?]+)\/?$/, page: overviewPage, params: (m) => ({ run: m[1] }) },
  { pattern: /^\/run\/([^/?]+)\/rollouts\/?(?:\?(.*))?$/, page: rolloutsPage, params: (m) => ({ run: m[1], query: new URLSearchParams(m[2] ?? '') }) },
  { pattern: /^\/run\/([^/?]+)\/rollout\/([^?]+)$/, page: rolloutPage, params: (m) => ({ run: m[1], id: m[2] }) },
  { pattern: /^\/run\/([^/?]+)\/group\/([^?]+)$/, page: groupPage, params: (m) => ({ run: m[1], task: m[2] }) },
  { pattern: /^\/run\/([^/?]+)\/tasks\/?(?:\?(.*))?$/, page: tasksPage, params: (m) => ({ run: m[1], query: new URLSearchParams(m[2] ?? '') }) },
  { pattern: /^\/run\/([^/?]+)\/timeline\/?(?:\?(.*))?$/, page: timelinePage, params: (m) => ({ run: m[1], query: new URLSearchParams(m[2] ?? '') }) },
  { pattern: /^\/compare\/([^/?]+)\/([^/?]+)\/?(?:\?(.*))?$/, page: comparePage, params: (m) => ({ a: m[1], b: m[2], query: new URLSearchParams(m[3] ?? '') }) },
  { pattern: /^\/compare\/([^/?]+)\/([^/?]+)\/task\/([^/?]+)$/, page: compareTaskPage, params: (m) => ({ a: m[1], b: m[2], task: m[3] }) },
];

const main = document.getElementById('main');
const status = document.getElementById('live-status');
let current = null;
let versions = new Map();
let timer = null;

function decodeParams(params) {
  const out = {};
  for (const [key, value] of Object.entries(params)) out[key] = typeof value === 'string' ? decodeURIComponent(value) : value;
  return out;
}

function route() {
  current?.handle?.dispose?.();
  current = null;
  const path = location.hash.replace(/^#/, '') || '/';
  const match = routes.map((r) => ({ r, m: path.match(r.pattern) })).find((x) => x.m);
  const root = h('div', { class: 'page' });
  replace(main, root);
  if (!match) {
    replace(root, errorBox(`No page at ${path}.`), h('p', {}, h('a', { href: '#/' }, 'All runs')));
    return;
  }
  let params;
  try {
    params = decodeParams(match.r.params(match.m));
  } catch {
    replace(root, errorBox(`Malformed address ${path}.`));
    return;
  }
  current = { params, handle: match.r.page.mount(root, params) };
  markNav(params.run);
  if (params.a !== undefined) markCompareNav(params);
  main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

function markNav(run) {
  const nav = document.getElementById('crumbs');
  replace(nav, h('a', { href: '#/' }, 'runs'));
  if (run !== undefined) {
    nav.append(' / ', h('a', { href: `#/run/${encodeURIComponent(run)}` }, run), ' / ', h('a', { href: `#/run/${encodeURIComponent(run)}/rollouts` }, 'rollouts'));
    nav.append(' · ', h('a', { href: `#/run/${encodeURIComponent(run)}/tasks` }, 'tasks'));
  }
}

function markCompareNav({ a, b, task }) {
  const nav = document.getElementById('crumbs');
  nav.append(' / ', h('a', { href: `#/compare/${encodeURIComponent(a)}/${encodeURIComponent(b)}` }, `compare ${a} with ${b}`));
  if (task !== undefined) nav.append(' / ', `task ${task}`);
}

async function poll() {
  timer = null;
  if (document.visibilityState !== 'visible') return;
  try {
    const { runs } = await api.runs();
    const next = new Map(runs.map((run) => [run.id, run.version]));
    const run = current?.params.run;
    const changed = versions.size > 0 && (run === undefined ? [...next].some(([id, v]) => versions.get(id) !== v) || next.size !== versions.size : versions.get(run) !== next.get(run));
    versions = next;
    if (changed) current?.handle?.refresh?.();
    status.textContent = `live · checked ${new Date().toLocaleTimeString()}`;
    status.classList.remove('stale');
  } catch (error) {
    status.textContent = `not reachable: ${error.message}`;
    status.classList.add('stale');
  }
  schedule();
}

function schedule() {
  if (timer === null && document.visibilityState === 'visible') timer = setTimeout(poll, POLL_MS);
}

document.addEventListener('visibilitychange', () => {
  if (!api.live) return;
  if (document.visibilityState === 'visible') {
    clearTimeout(timer);
    timer = null;
    poll();
  } else {
    clearTimeout(timer);
    timer = null;
    status.textContent = 'paused while the tab is hidden';
  }
});

window.addEventListener('hashchange', route);
route();
// A bundle is a copy of the runs as they were when it was written: nothing changes, nothing to poll.
if (api.live) poll();
else status.textContent = `static copy, written ${new Date(api.written).toLocaleString()}`;
