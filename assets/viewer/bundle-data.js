// A static copy of the viewer (`gymnast view RUN --bundle DIR`) has no server: the API's answers were
// written as data/<name>.js, classic scripts that hand them to window.gymnastBundle.put (Chromium
// fetches nothing over file://). Each is loaded once, when a page first asks; the rollouts list is
// filtered here over every rollout's summary, and a text search loads the messages' text.

import { BadQuery, rolloutPage } from './rollout-filter.js';
import { sortedPage } from './sorted-page.js';

const TASK_SORT_KEYS = ['task', 'rollouts', 'pass_at_k', 'mean_reward', 'reward_variance', 'mean_turns', 'mean_tokens', 'failures'];
const COMPARE_SORT_KEYS = ['task', 'mean_reward_a', 'mean_reward_b', 'delta'];

/** The bundle's store, set by its index.html; null when a server answers. */
export const bundle = globalThis.gymnastBundle ?? null;

const loads = new Map();

/** The answer in data/<name>.js, unpacked; a missing file is a 404. */
function load(name) {
  if (!loads.has(name)) {
    loads.set(
      name,
      new Promise((resolve, reject) => {
        const script = document.createElement('script');
        script.src = `data/${name}.js`;
        script.onload = () => (bundle.data.has(name) ? resolve(unpack(bundle.data.get(name))) : reject(missing(name)));
        script.onerror = () => reject(missing(name));
        document.head.append(script);
      }),
    );
  }
  return loads.get(name);
}

const missing = (name) => Object.assign(new Error(`not in this bundle: data/${name}.js`), { status: 404 });

/** Lists written as {$keys, $rows} (a rollout's tokens, the rollouts' summaries) back as objects. */
function unpack(value) {
  if (Array.isArray(value)) return value.map(unpack);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value.$keys) && Array.isArray(value.$rows)) return value.$rows.map((row) => Object.fromEntries(value.$keys.map((key, i) => [key, unpack(row[i])])));
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, unpack(v)]));
}

/**
 * What the server would answer to GET `path` (`/api/runs/…?…`): {status, body}, the body an
 * {error: {message}} when the status is not 200. Routes of a run with no query are data/<run>/<name>.js.
 */
export async function bundledAnswer(path) {
  const [pathname, search = ''] = path.split('?');
  const segments = pathname.replace(/^\/api\//, '').split('/').filter(Boolean).map(decodeURIComponent);
  try {
    const runs = await load('runs');
    if (segments[0] === 'compare') return await compare(runs, segments, new URLSearchParams(search));
    if (segments[0] !== 'runs') return notFound(`no API route ${pathname}`);
    if (segments.length === 1) return ok(runs);
    const position = runs.runs.findIndex((run) => run.id === segments[1]);
    if (position === -1) return notFound(`no run ${segments[1]}: the runs are ${runs.runs.map((run) => run.id).join(', ')}`);
    const [, , what, key, ...rest] = segments;
    if (rest.length > 0 || what === undefined) return notFound(`no API route ${pathname}`);
    if (what === 'rollouts' && key === undefined) return ok(await rollouts(position, new URLSearchParams(search)));
    if (what === 'rollouts') return /^[of]\d+$/.test(key) ? ok(withTokens(await load(`${position}/rollouts/${key}`))) : notFound(`no rollout ${key} in run ${segments[1]}`);
    if (what === 'groups') return /^\d{1,10}$/.test(key) ? ok(await load(`${position}/groups/${Number(key)}`)) : notFound(`no task ${key} in run ${segments[1]}`);
    if (what === 'tasks' && key === undefined) return ok(await tasks(position, new URLSearchParams(search)));
    if (key === undefined && /^[a-z][a-z0-9-]*$/.test(what)) return ok(await load(`${position}/${what}`));
    return notFound(`no API route ${pathname}`);
  } catch (error) {
    if (error instanceof BadQuery) return { status: 400, body: { error: { message: error.message, parameter: error.parameter } } };
    if (error.status === 404) return notFound(error.message);
    throw error;
  }
}

/**
 * A rollout's tokens, written as their texts alone, rebuilt from its row's messages as the server
 * builds them (src/viewer/rollout-views.ts, tokenViews): every token in message order, with its
 * logprob where the sampler gave one; those tokens are the trained ones.
 */
function withTokens(detail) {
  const texts = detail.tokens.$texts;
  let at = 0;
  const tokens = (detail.row.messages ?? []).flatMap((message, index) =>
    (message.token_ids ?? []).map((id, position) => ({
      id,
      text: texts === null ? null : texts[at++],
      logprob: message.generation_logprobs?.[position] ?? null,
      trained: message.generation_logprobs !== undefined,
      message: index,
      role: message.role,
    })),
  );
  return { ...detail, tokens };
}

async function rollouts(position, search) {
  const summaries = await load(`${position}/rollouts`);
  const texts = search.get('q') ? await load(`${position}/texts`) : null;
  return rolloutPage(summaries, texts, search);
}

async function tasks(position, search) {
  const { total, items } = await load(`${position}/tasks`);
  const page = sortedPage(items, search, TASK_SORT_KEYS, '-reward_variance');
  return { total, offset: page.offset, sort: page.sort, items: page.items };
}

/** Two runs compared: written for every ordered pair of a bundle of a few runs (see viewer-bundle.ts). */
async function compare(runs, segments, search) {
  if (segments.length !== 3) return notFound(`no API route /api/${segments.join('/')}: compare two runs with /api/compare/:a/:b`);
  const positions = segments.slice(1).map((id) => runs.runs.findIndex((run) => run.id === id));
  const unknown = segments.slice(1).find((_, i) => positions[i] === -1);
  if (unknown !== undefined) return notFound(`no run ${unknown}: the runs are ${runs.runs.map((run) => run.id).join(', ')}`);
  const { items, ...comparison } = await load(`compare/${positions[0]}-${positions[1]}`);
  const page = sortedPage(items, search, COMPARE_SORT_KEYS, 'delta');
  return ok({ ...comparison, sort: page.sort, offset: page.offset, items: page.items });
}

const ok = (body) => ({ status: 200, body });
const notFound = (message) => ({ status: 404, body: { error: { message } } });
