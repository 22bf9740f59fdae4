import { EMBEDDED_MODEL_NAME } from '../openai-compatible/embedded-model-server.js';
import { parseRolloutQuery } from '../../viewer/rollout-query.js';
import type { TokenDecoder } from '../../core/token-decoder.js';
import { type RolloutLister, rolloutDetail, taskGroup } from '../../viewer/rollout-views.js';
import type { RunIndex } from '../../viewer/run-index.js';
import { runOverview, runSummary } from '../../viewer/run-overview.js';
import { parseTaskQuery, taskPage } from '../../viewer/task-page.js';
import { compareRuns, parseCompareQuery } from '../../viewer/run-comparison.js';
import { parseTimelineQuery, runTimeline } from '../../viewer/run-timeline.js';
import type { ViewedRun } from './run-files.js';

/** One run as the API serves it: its index, its lister (whose cache pages cheaply), and how to decode its tokens. */
export interface ServedRun {
  run: ViewedRun;
  index: RunIndex;
  lister: RolloutLister;
  /** The tokenizer that made an agent's rows, when known. */
  decoder: (agent: string) => Promise<TokenDecoder | undefined>;
}

export interface ApiReply {
  status: number;
  body: unknown;
}

const notFound = (message: string): ApiReply => ({ status: 404, body: { error: { message } } });
const ok = (body: unknown): ApiReply => ({ status: 200, body });

/**
 * The viewer's JSON API by path segments after `/api/`: `runs`, `runs/:run/overview`,
 * `runs/:run/rollouts`, `runs/:run/rollouts/:id`, `runs/:run/groups/:task`, `runs/:run/tasks`,
 * `runs/:run/timeline`, `compare/:a/:b`. A bad query parameter
 * throws a `BadQueryError` (the server answers 400 naming it).
 */
export async function answerApi(runs: ReadonlyMap<string, ServedRun>, segments: readonly string[], search: URLSearchParams): Promise<ApiReply> {
  if (segments[0] === 'compare') return compare(runs, segments, search);
  if (segments[0] !== 'runs') return notFound(`no API route /api/${segments.join('/')}`);
  if (segments.length === 1) return ok({ runs: [...runs.values()].map((served) => runSummary(served.index)) });
  const served = runs.get(segments[1]!);
  if (!served) return notFound(`no run ${segments[1]}: the runs are ${[...runs.keys()].join(', ')}`);
  // While the first pass runs, answer with what is indexed so far rather than wait for all of it.
  if (served.index.indexing.done) await served.index.refresh();
  const [, , what, key, ...rest] = segments;
  if (rest.length > 0) return notFound(`no API route /api/${segments.join('/')}`);
  if (what === 'overview' && key === undefined) return ok(runOverview(served.index, modelOf(served.run)));
  if (what === 'rollouts' && key === undefined) return ok(await served.lister.page(parseRolloutQuery(search)));
  if (what === 'rollouts' && key !== undefined) return rollout(served, key);
  if (what === 'groups' && key !== undefined) return group(served, key);
  if (what === 'tasks' && key === undefined) return ok(taskPage(served.index, parseTaskQuery(search)));
  if (what === 'timeline' && key === undefined) return ok(await runTimeline(served.index, parseTimelineQuery(search)));
  return notFound(`no API route /api/${segments.join('/')}`);
}

async function rollout(served: ServedRun, id: string): Promise<ApiReply> {
  const at = served.index.columns.find(id);
  if (at === undefined) return notFound(`no rollout ${id} in run ${served.run.id}`);
  return ok(await rolloutDetail(served.index, at, await served.decoder(served.index.columns.agentOf(at))));
}

async function group(served: ServedRun, task: string): Promise<ApiReply> {
  const found = /^\d{1,10}$/.test(task) ? await taskGroup(served.index, Number(task)) : undefined;
  if (!found || found.items.length === 0) return notFound(`no task ${task} in run ${served.run.id}`);
  // Findings about the whole task (every repeat failed or scored 0) are shown here, on no single rollout.
  return ok({ task: Number(task), ...found, task_findings: served.index.health?.taskFindings(Number(task)) ?? null });
}

/** Two served runs' tasks side by side: `compare/:a/:b`, each run refreshed first as a single run's routes are. */
async function compare(runs: ReadonlyMap<string, ServedRun>, segments: readonly string[], search: URLSearchParams): Promise<ApiReply> {
  if (segments.length !== 3) return notFound(`no API route /api/${segments.join('/')}: compare two runs with /api/compare/:a/:b`);
  const pair = segments.slice(1).map((id) => runs.get(id));
  const missing = segments.slice(1).filter((_, i) => pair[i] === undefined);
  if (missing.length > 0) return notFound(`no run ${missing.join(', ')}: the runs are ${[...runs.keys()].join(', ')}`);
  const [a, b] = pair as [ServedRun, ServedRun];
  for (const served of [a, b]) if (served.index.indexing.done) await served.index.refresh();
  return ok(compareRuns(a.index, b.index, parseCompareQuery(search)));
}

/** What served the run, as `gymnast collect` recorded it: the embedded model by its served name. */
function modelOf(run: ViewedRun): string | null {
  return run.policy === 'embedded' ? EMBEDDED_MODEL_NAME : run.policy;
}
