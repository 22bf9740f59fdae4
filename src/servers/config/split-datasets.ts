import { existsSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, resolve } from 'node:path';
import { ConfigFileError } from '../../core/errors/config-file-error.js';
import { InvalidRowError } from '../../core/errors/invalid-row-error.js';
import { readJsonLines } from '../../util/json-lines.js';
import type { DatasetSplit } from './dataset-types.js';
import type { DatasetConfig, GymConfig } from './server-config.js';

/** One dataset of a split: whose it is, where its rows are, and where the config says so. */
export interface SplitDataset {
  /** The agent instance the rows are for: stamped as their `agent_ref`. */
  agent: string;
  dataset: DatasetConfig;
  /** The JSONL file, absolute. */
  path: string;
  /** `agent.responses_api_agents.impl.datasets.N`, for errors. */
  yamlPath: string;
}

export interface SplitDatasetsOptions {
  /** The working directory a relative `jsonl_fpath` is resolved against (default `process.cwd()`). */
  cwd?: string;
  /** Read for `NEMO_GYM_EXTRA_ROOTS` (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Every dataset of `split` across the config's agents, in config order (NeMo Gym's `TrainDataProcessor`
 * collation, per dataset). A relative `jsonl_fpath` is found as NeMo Gym finds it: under the first of
 * `NEMO_GYM_EXTRA_ROOTS` that has it, else under the working directory, never beside the config file
 * (NeMo Gym's configs name `resources_servers/<env>/data/…` from the Gym checkout). A split no agent
 * has, or a file that is not there, is a `ConfigFileError` naming the YAML path, before any row is read.
 */
export function splitDatasets(config: GymConfig, split: DatasetSplit, options: SplitDatasetsOptions = {}): SplitDataset[] {
  const roots = searchRoots(options.cwd ?? process.cwd(), options.env ?? process.env);
  const found: SplitDataset[] = [];
  const splits = new Set<string>();
  for (const instance of config.instances) {
    if (instance.type !== 'responses_api_agents') continue;
    (instance.config.datasets ?? []).forEach((dataset, index) => {
      splits.add(dataset.type);
      if (dataset.type !== split) return;
      const path = datasetPath(dataset.jsonl_fpath, roots);
      found.push({ agent: instance.name, dataset, path, yamlPath: `${instance.path}.datasets.${index}` });
    });
  }
  if (found.length === 0) {
    throw new ConfigFileError(config.file, [
      { path: '', expected: `an agent with a ${split} dataset; the config's datasets are ${splits.size === 0 ? 'none' : [...splits].join(', ')}` },
    ]);
  }
  const missing = found.filter((entry) => !isFile(entry.path));
  if (missing.length > 0)
    throw new ConfigFileError(
      config.file,
      missing.map((entry) => ({ path: `${entry.yamlPath}.jsonl_fpath`, expected: missingFile(entry, roots, config.file) })),
    );
  return found;
}

/** `NEMO_GYM_EXTRA_ROOTS` (path-separated) first, then the working directory: NeMo Gym's search order for the files a config names. */
function searchRoots(cwd: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const extra = (env.NEMO_GYM_EXTRA_ROOTS ?? '').split(delimiter).filter(Boolean);
  return [...extra.map((root) => resolve(cwd, root)), resolve(cwd)];
}

/** Under the first root that has it; a path found under none is named under the working directory, the last root. */
function datasetPath(jsonlPath: string, roots: readonly string[]): string {
  if (isAbsolute(jsonlPath)) return jsonlPath;
  return roots.map((root) => resolve(root, jsonlPath)).find(isFile) ?? resolve(roots.at(-1)!, jsonlPath);
}

/** What was looked for where; a path written from the config's folder (the likely mix-up) is pointed out. */
function missingFile(entry: SplitDataset, roots: readonly string[], configFile: string): string {
  const jsonlPath = entry.dataset.jsonl_fpath;
  if (isAbsolute(jsonlPath)) return `an existing JSONL file, got ${jsonlPath}`;
  const where = roots.length === 1 ? `the working directory (${roots[0]})` : `NEMO_GYM_EXTRA_ROOTS or the working directory (${roots.join(', ')})`;
  const configDir = dirname(resolve(configFile));
  const hint = isFile(resolve(configDir, jsonlPath))
    ? `; it is there from the config's folder: run from ${configDir}, or name the file from the working directory`
    : '';
  return `an existing JSONL file: a relative path is found under ${where}, as NeMo Gym finds it, and ${entry.path} is not there${hint}`;
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/**
 * The dataset's rows, streamed, each with `agent_ref: {type: "responses_api_agents", name: <agent>}`
 * stamped over whatever it had (as NeMo Gym's collation does). A line that is not a JSON object is an
 * `InvalidRowError` naming file and line.
 */
export async function* collatedRows(dataset: SplitDataset, signal?: AbortSignal): AsyncGenerator<Record<string, unknown>> {
  for await (const { line, text } of readJsonLines(dataset.path, signal)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new InvalidRowError(`${dataset.path}:${line}`, '', `not JSON (${(error as Error).message})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidRowError(`${dataset.path}:${line}`, '', 'expected a JSON object');
    yield { ...value, agent_ref: { type: 'responses_api_agents', name: dataset.agent } };
  }
}

/** Writes the dataset's collated rows to `outputPath` (replacing it) and returns how many. */
export async function collateDataset(dataset: SplitDataset, outputPath: string, signal?: AbortSignal): Promise<number> {
  const file = await open(outputPath, 'w');
  let count = 0;
  try {
    for await (const row of collatedRows(dataset, signal)) {
      await file.write(`${JSON.stringify(row)}\n`);
      count++;
    }
  } finally {
    await file.close();
  }
  return count;
}
