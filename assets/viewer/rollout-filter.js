// The rollouts list without a server (a bundle, `gymnast view RUN --bundle DIR`): the query of
// GET /api/runs/:run/rollouts applied to every rollout's summary, as the server applies it
// (src/viewer/rollout-query.ts; a spec holds the two to the same answers). A text search looks in each
// rollout's messages (`texts`, lowercased JSON), as the server looks in its line.

const SORT_KEYS = { reward: 'reward', tokens: 'tokens', turns: 'turns', task: 'task', duration: 'duration_ms' };

/** A bad query parameter, as the server's 400 names it. */
export class BadQuery extends Error {
  constructor(parameter, message) {
    super(`bad query parameter ${parameter}: ${message}`);
    this.parameter = parameter;
  }
}

/**
 * summaries: every rollout's summary in the server's default order (task, rollout); texts: the same
 * rollouts' search text, or null when the query has no `q`. → {total, offset, items, partial}.
 */
export function rolloutPage(summaries, texts, search) {
  const query = parse(search);
  const tests = filters(query, texts);
  const kept = [];
  summaries.forEach((summary, at) => {
    if (tests.every((test) => test(summary, at))) kept.push(at);
  });
  if (query.sort) sortPositions(kept, summaries, query.sort);
  const items = kept.slice(query.offset, query.offset + query.limit).map((at) => summaries[at]);
  return { total: kept.length, offset: query.offset, items, partial: false };
}

function parse(search) {
  const given = {};
  for (const [name, value] of search) if (value !== '') given[name] = value;
  const count = (name, fallback, max) => {
    if (given[name] === undefined) return fallback;
    const value = Number(given[name]);
    if (!Number.isInteger(value) || value < 0 || value > max) throw new BadQuery(name, `expected an integer from 0 to ${max}`);
    return value;
  };
  const finite = (name) => {
    if (given[name] === undefined) return undefined;
    const value = Number(given[name]);
    if (!Number.isFinite(value)) throw new BadQuery(name, 'expected a finite number');
    return value;
  };
  const sort = given.sort;
  if (sort !== undefined && !(sort.replace(/^-/, '') in SORT_KEYS)) throw new BadQuery('sort', `expected one of ${Object.keys(SORT_KEYS).join(', ')}, each or with a leading -`);
  const limit = count('limit', 50, 1000);
  if (limit < 1) throw new BadQuery('limit', 'expected an integer from 1 to 1000');
  return { ...given, offset: count('offset', 0, 2 ** 32), limit, task: count('task', undefined, 2 ** 32), min_reward: finite('min_reward'), max_reward: finite('max_reward'), sort };
}

function filters(query, texts) {
  const tests = [];
  if (query.termination !== undefined) tests.push((r) => r.termination === query.termination);
  if (query.agent !== undefined) tests.push((r) => r.agent === query.agent);
  if (query.task !== undefined) tests.push((r) => r.task === query.task);
  if (query.failure === 'any') tests.push((r) => isFailure(r));
  else if (query.failure === 'none') tests.push((r) => !isFailure(r));
  else if (query.failure !== undefined) tests.push((r) => r.failure_class === query.failure);
  if (query.drift !== undefined) tests.push((r) => r.drift > 0 === (query.drift === '1'));
  // A failure has no reward: a reward bound keeps successes only.
  if (query.min_reward !== undefined) tests.push((r) => r.reward !== null && r.reward >= query.min_reward);
  if (query.max_reward !== undefined) tests.push((r) => r.reward !== null && r.reward <= query.max_reward);
  // Without a health report nothing is known healthy: no rollout has a verdict to match.
  if (query.health !== undefined) tests.push((r) => r.health !== null && r.health === query.health);
  if (query.q !== undefined) {
    // Rows are JSON: a quote or newline in the text is escaped there, so the escaped form is looked for.
    const needle = JSON.stringify(query.q).slice(1, -1).toLowerCase();
    tests.push((_, at) => texts[at].includes(needle));
  }
  return tests;
}

/** A failure's id starts with `f` (src/viewer/rollout-columns.ts). */
const isFailure = (summary) => summary.id.startsWith('f');

/** By the sort key, `-` for descending; a missing value (a failure's reward) last either way; ties in list order. */
function sortPositions(positions, summaries, sort) {
  const descending = sort.startsWith('-');
  const key = SORT_KEYS[descending ? sort.slice(1) : sort];
  const sign = descending ? -1 : 1;
  positions.sort((a, b) => {
    const x = summaries[a][key];
    const y = summaries[b][key];
    if (x === null || y === null) return x === y ? a - b : x === null ? 1 : -1;
    return sign * (x - y) || a - b;
  });
}
