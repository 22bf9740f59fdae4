import { existsSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
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
  /** What a relative `jsonl_fpath` is relative to (default: the config file's directory). */
  baseDir?: string;
}

/**
 * Every dataset of `split` across the config's agents, in config order (NeMo Gym's `TrainDataProcessor`
 * collation, per dataset). A split no agent has, or a file that is not there, is a `ConfigFileError`
 * naming the YAML path, before any row is read.
 */
export function splitDatasets(config: GymConfig, split: DatasetSplit, options: SplitDatasetsOptions = {}): SplitDataset[] {
  const baseDir = options.baseDir ?? dirname(resolve(config.file));
  const found: SplitDataset[] = [];
  const splits = new Set<string>();
  for (const instance of config.instances) {
    if (instance.type !== 'responses_api_agents') continue;
    (instance.config.datasets ?? []).forEach((dataset, index) => {
      splits.add(dataset.type);
      if (dataset.type !== split) return;
      const path = isAbsolute(dataset.jsonl_fpath) ? dataset.jsonl_fpath : resolve(baseDir, dataset.jsonl_fpath);
      found.push({ agent: instance.name, dataset, path, yamlPath: `${instance.path}.datasets.${index}` });
    });
  }
  if (found.length === 0) {
    throw new ConfigFileError(config.file, [{ path: '', expected: `an agent with a ${split} dataset; the config's datasets are ${splits.size === 0 ? 'none' : [...splits].join(', ')}` }]);
  }
  const missing = found.filter((entry) => !existsSync(entry.path) || !statSync(entry.path).isFile());
  if (missing.length > 0) throw new ConfigFileError(config.file, missing.map((entry) => ({ path: `${entry.yamlPath}.jsonl_fpath`, expected: `an existing JSONL file, got ${entry.path}` })));
  return found;
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
