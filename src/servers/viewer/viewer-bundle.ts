import { constants } from 'node:fs';
import { access, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { OutputPathError } from '../../core/errors/output-path-error.js';
import type { TokenDecoder } from '../../core/token-decoder.js';
import type { Message } from '../../core/message.js';
import type { RolloutDetail, RolloutPage, RolloutSummary, TokenView } from '../../viewer/rollout-views.js';
import type { RunSummary } from '../../viewer/run-overview.js';
import type { RunComparison } from '../../viewer/run-comparison.js';
import type { TaskPage } from '../../viewer/task-page.js';
import { classicScript } from './classic-script.js';
import type { ViewedRun } from './run-files.js';
import { servedRuns } from './served-runs.js';
import { answerApi, type ServedRun } from './viewer-api.js';
import { viewerAssetsDirectory } from './viewer-server.js';

/**
 * The routes of a run (`/api/runs/:run/<name>`) whose whole answer a bundle keeps, at `data/<run>/<name>.js`:
 * adding a page's route to the bundle is adding its name here. The rollouts list, each rollout and each
 * group are written apart (the list is filtered in the page, each rollout and group is a file).
 */
const WHOLE_RUN_ROUTES: readonly string[] = ['overview', 'timeline'];

/** The largest page the API gives (`limit`). */
const PAGE = 1000;

/** Runs a bundle compares two by two (a file per ordered pair); a bundle of more runs has no compare pages. */
const MAX_COMPARED_RUNS = 8;

export interface ViewerBundleOptions {
  runs: readonly ViewedRun[];
  /** Where to write; it must be missing or empty unless `overwrite`. */
  directory: string;
  /** Write into a folder that is not empty (its `data/` is replaced; other files are left). */
  overwrite?: boolean;
  tokenizer?: TokenDecoder;
  /** Where the front-end files are (default: the package's `assets/viewer/`). */
  assetsDirectory?: string;
}

export interface ViewerBundle {
  directory: string;
  runs: number;
  rollouts: number;
  files: number;
  bytes: number;
}

/**
 * `gymnast view RUN --bundle DIR`: a static copy of the viewer that opens from disk (file://) or any
 * static host, with no server. Chromium runs neither fetch() nor ES modules over file://, so the app
 * is linked into one classic script (`viewer.js`) and the API's answers are written as classic scripts
 * under `data/`, each handing its answer to `gymnastBundle.put`, which the page loads when it needs
 * them: the run list and overviews, the timeline (its first window), every rollout's summary (the rollouts page filters and sorts them
 * itself) and the searchable text of its messages, each rollout, each task's group, its task table, and
 * every pair of runs compared (both tables sorted and paged in the page). The answers are
 * the server's own (`answerApi`), so the copy shows what `gymnast view` shows.
 */
export async function writeViewerBundle(options: ViewerBundleOptions): Promise<ViewerBundle> {
  const directory = resolve(options.directory);
  await prepareDirectory(directory, options.overwrite === true).catch((error) => {
    throw unwritable(directory, error);
  });
  const assets = options.assetsDirectory ?? viewerAssetsDirectory;
  const runs = servedRuns(options.runs, options.tokenizer ? { tokenizer: options.tokenizer } : {});
  const data = new DataFiles(join(directory, 'data'));
  try {
    for (const { index } of runs.values()) await index.refresh();
    const list = (await answer(runs, ['runs'])) as { runs: RunSummary[] };
    await data.put('runs', list);
    let rollouts = 0;
    for (const [position, served] of [...runs.values()].entries()) rollouts += await writeRun(runs, served, String(position), data);
    if (runs.size <= MAX_COMPARED_RUNS) await writeComparisons(runs, data);
    await writeFile(join(directory, 'viewer.js'), await classicScript(assets, 'app.js'));
    await writeFile(join(directory, 'style.css'), await readFile(join(assets, 'style.css')));
    await writeFile(join(directory, 'index.html'), bundlePage(await readFile(join(assets, 'index.html'), 'utf8')));
    const pageBytes = await Promise.all(['viewer.js', 'style.css', 'index.html'].map(async (name) => (await stat(join(directory, name))).size));
    return { directory, runs: runs.size, rollouts, files: data.files + 3, bytes: data.bytes + pageBytes.reduce((a, b) => a + b, 0) };
  } catch (error) {
    throw unwritable(directory, error);
  } finally {
    for (const { index } of runs.values()) index.close();
  }
}

/** One run's answers under `data/<position>/`; returns how many rollouts it has. */
async function writeRun(runs: ReadonlyMap<string, ServedRun>, served: ServedRun, position: string, data: DataFiles): Promise<number> {
  const id = served.run.id;
  for (const route of WHOLE_RUN_ROUTES) await data.put(`${position}/${route}`, await answer(runs, ['runs', id, route]));
  const summaries: RolloutSummary[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = (await answer(runs, ['runs', id, 'rollouts'], { offset: String(offset), limit: String(PAGE) })) as RolloutPage;
    summaries.push(...page.items);
    if (offset + PAGE >= page.total) break;
  }
  await data.put(`${position}/rollouts`, packed(summaries));
  const tasks = await wholeTable<TaskPage>(runs, ['runs', id, 'tasks'], (page) => page.total);
  await data.put(`${position}/tasks`, { total: tasks.items.length, items: packed(tasks.items) });
  const texts: string[] = [];
  for (const summary of summaries) {
    const detail = (await answer(runs, ['runs', id, 'rollouts', summary.id])) as RolloutDetail;
    texts.push(searchText(detail.row.messages ?? []));
    await data.put(`${position}/rollouts/${summary.id}`, { ...detail, tokens: tokenTexts(detail.tokens) });
  }
  await data.put(`${position}/texts`, texts);
  for (const task of new Set(summaries.map((summary) => summary.task)))
    await data.put(`${position}/groups/${task}`, await answer(runs, ['runs', id, 'groups', String(task)]));
  return summaries.length;
}

/** Every ordered pair of runs compared, at `data/compare/<a>-<b>`: the comparison with all its tasks, which the page sorts and pages. */
async function writeComparisons(runs: ReadonlyMap<string, ServedRun>, data: DataFiles): Promise<void> {
  const ids = [...runs.keys()];
  for (const [a, idA] of ids.entries()) {
    for (const [b, idB] of ids.entries()) {
      if (a === b) continue;
      const { items, sort: _sort, offset: _offset, ...comparison } = await wholeTable<RunComparison>(runs, ['compare', idA, idB], (page) => page.matched);
      await data.put(`compare/${a}-${b}`, { ...comparison, items: packed(items) });
    }
  }
}

/** A paged answer's every row (in task order), read a page at a time, with the rest of its last page. */
async function wholeTable<T extends { items: object[] }>(runs: ReadonlyMap<string, ServedRun>, segments: string[], total: (page: T) => number): Promise<T> {
  const items: T['items'] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = (await answer(runs, segments, { sort: 'task', offset: String(offset), limit: String(PAGE) })) as T;
    items.push(...page.items);
    if (offset + PAGE >= total(page)) return { ...page, items };
  }
}

async function answer(runs: ReadonlyMap<string, ServedRun>, segments: string[], query: Record<string, string> = {}): Promise<unknown> {
  const reply = await answerApi(runs, segments, new URLSearchParams(query));
  if (reply.status !== 200) throw new Error(`the viewer's API answered ${reply.status} to /api/${segments.join('/')}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/**
 * What a text search looks in: the messages without their token fields, as JSON, lowercased. The
 * server searches a rollout's line the same way (the JSON-escaped, lowercased query), over the whole row.
 */
function searchText(messages: readonly Message[]): string {
  return JSON.stringify(messages.map(({ token_ids: _ids, generation_logprobs: _logprobs, ...rest }) => rest)).toLowerCase();
}

/** A list of like objects as one list of keys and a row of values each (`{$keys, $rows}`), which the page unpacks: a third of the bytes. */
function packed<T extends object>(items: readonly T[]): { $keys: string[]; $rows: unknown[][] } {
  const keys = items.length === 0 ? [] : Object.keys(items[0]!);
  return { $keys: keys, $rows: items.map((item) => keys.map((key) => (item as Record<string, unknown>)[key])) };
}

/**
 * A rollout's tokens as their texts alone (null when nothing decoded them): their ids, logprobs, mask
 * and messages are the row's messages' (`tokenViews`), which the page reads back from the row. A
 * rollout's file is then about its line's size, not three times it.
 */
function tokenTexts(tokens: readonly TokenView[]): { $texts: (string | null)[] | null } {
  return { $texts: tokens.every((token) => token.text === null) ? null : tokens.map((token) => token.text) };
}

/** The viewer's page with the linked script, after the bundle's store, in place of its module script. */
function bundlePage(html: string): string {
  const moduleScript = '<script type="module" src="app.js"></script>';
  if (!html.includes(moduleScript)) throw new Error(`the viewer's index.html no longer loads ${moduleScript}: the bundle cannot replace it`);
  const store = `<script>window.gymnastBundle = { written: ${JSON.stringify(new Date().toISOString())}, data: new Map(), put(name, value) { this.data.set(name, value); } };</script>`;
  return html.replace(moduleScript, `${store}\n  <script defer src="viewer.js"></script>`);
}

/** Writes `data/<name>.js` files, each `gymnastBundle.put("<name>", <answer>);`, and counts them. */
class DataFiles {
  readonly #root: string;
  files = 0;
  bytes = 0;

  constructor(root: string) {
    this.#root = root;
  }

  async put(name: string, value: unknown): Promise<void> {
    const file = join(this.#root, `${name}.js`);
    const text = `gymnastBundle.put(${JSON.stringify(name)}, ${JSON.stringify(value)});\n`;
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    this.files += 1;
    this.bytes += Buffer.byteLength(text);
  }
}

/**
 * Makes the folder, or checks it is empty; with `overwrite`, clears the `data/` an earlier bundle left.
 * A folder to make is checked first where it would be made (its nearest existing parent must be a
 * writable folder), and made one level at a time: Node's recursive mkdir never returns under /proc.
 */
async function prepareDirectory(directory: string, overwrite: boolean): Promise<void> {
  const existing = await stat(directory).catch(() => undefined);
  if (existing && !existing.isDirectory()) throw new OutputPathError(directory, `cannot write a bundle to ${directory}: it is a file, not a folder`);
  if (existing) {
    if (!overwrite && (await readdir(directory)).length > 0)
      throw new OutputPathError(directory, `cannot write a bundle to ${directory}: the folder is not empty (pass --overwrite to write over it)`);
    await access(directory, constants.W_OK);
    await rm(join(directory, 'data'), { recursive: true, force: true });
    return;
  }
  const missing = [directory];
  while (!(await stat(dirname(missing[0]!)).catch(() => undefined))) missing.unshift(dirname(missing[0]!));
  const parent = dirname(missing[0]!);
  if (!(await stat(parent)).isDirectory()) throw new OutputPathError(directory, `cannot write a bundle to ${directory}: ${parent} is a file, not a folder`);
  await access(parent, constants.W_OK);
  for (const folder of missing) await mkdir(folder);
}

/** A file-system error while writing, as the folder's error (a missing permission, a full disk, a file in the way). */
function unwritable(directory: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && ['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'ENOTDIR', 'EEXIST', 'ENOENT'].includes(code)
    ? new OutputPathError(directory, `cannot write a bundle to ${directory}: ${(error as Error).message}`, { cause: error })
    : error;
}
