import { extname } from 'node:path';
import type { Command, Option } from 'commander';
import { ConfigError } from '../core/errors/config-error.js';
import { didYouMean } from '../util/closest-name.js';
import { prototypeKeyProblem } from '../util/prototype-key-problem.js';
import { parseHydraOverride, type HydraOverride, type HydraValue } from './hydra-override.js';
import { configValue, describeValue } from './option-value.js';

/**
 * NeMo Gym's rollout-collection keys (`002 rollout_collection.py`: `RolloutCollectionConfig`,
 * `E2ERolloutCollectionConfig`) and the `gymnast collect` option each one sets. `upload_rollouts_to_wandb`
 * is taken and has nothing to set: gymnast uploads nowhere.
 */
const KEYS: Readonly<Record<string, string | undefined>> = {
  agent_name: 'agent',
  input_jsonl_fpath: 'input',
  output_jsonl_fpath: 'output',
  limit: 'limit',
  num_repeats: 'numRepeats',
  num_repeats_add_seed: 'addSeed',
  num_samples_in_parallel: 'concurrency',
  resume_from_cache: 'resume',
  prompt_config: 'promptConfig',
  responses_create_params: 'set',
  upload_rollouts_to_wandb: undefined,
  split: 'split',
  reuse_existing_data_preparation: 'reuseDataPreparation',
  config_paths: 'config',
};

/** What a run should be told about overrides it took but does not act on. */
export type OverrideNotice = string;

/**
 * Sets the collect command's options from NeMo Gym's Hydra overrides (`+limit=100
 * +responses_create_params.temperature=0.6 …`), as if given as their flags, so a NeMo Gym command line
 * runs as it is. Each value is checked by the flag's own parser; a key NeMo Gym's collector does not
 * have, one given twice, or one given as its gymnast flag too is a ConfigError naming it. Resolves with
 * notices for the run.
 */
export function applyNemoGymOverrides(command: Command, args: readonly string[]): OverrideNotice[] {
  if (args.length === 0) return [];
  const tree = overrideTree(args.map(parseHydraOverride));
  const notices: OverrideNotice[] = [];
  for (const [key, { value, given }] of tree) {
    if (!Object.hasOwn(KEYS, key))
      throw new ConfigError(
        `${given}: ${key} is not one of NeMo Gym's collection keys${didYouMean(key, Object.keys(KEYS))}; gymnast collect takes ${Object.keys(KEYS)
          .map((name) => `+${name}`)
          .join(', ')}`,
      );
    const name = KEYS[key];
    if (name === undefined) {
      if (typeof value !== 'boolean') throw new ConfigError(`${given}: expected true or false, got ${describeValue(value)}`);
      if (value) notices.push(`${given}: gymnast uploads nothing to W&B`);
      continue;
    }
    // NeMo Gym reads null as the key's default.
    if (value === null) continue;
    const option = command.options.find((candidate) => candidate.attributeName() === name)!;
    const parsed = optionValue(option, key, value, given);
    command.setOptionValueWithSource(name, fromBoth(command, option, parsed, given), 'cli');
  }
  const split = command.getOptionValue('split') !== undefined;
  const configPaths = tree.get('config_paths');
  if (configPaths && configPaths.value !== null && !split) {
    throw new ConfigError(
      `${configPaths.given}: gymnast starts a config's servers only to collect a split (NeMo Gym's ng_e2e_collect_rollouts, +split=…); ng_collect_rollouts reaches running agents, which gymnast takes as --agent-server NAME=URL`,
    );
  }
  const output = tree.get('output_jsonl_fpath')?.value;
  if (split && typeof output === 'string') command.setOptionValueWithSource('output', splitOutputFolder(output), 'cli');
  return notices;
}

/**
 * An option given by an override may not be given by its flag as well: which one was meant is not
 * for gymnast to guess. `--set` and `responses_create_params` together are taken when they set
 * different request fields.
 */
function fromBoth(command: Command, option: Option, value: unknown, given: string): unknown {
  const name = option.attributeName();
  if (command.getOptionValueSource(name) !== 'cli') return value;
  if (name !== 'set') throw new ConfigError(`${given}: ${option.long} is given too; give one of them`);
  const flags = command.getOptionValue(name) as Record<string, unknown>;
  const fields = Object.keys(value as Record<string, unknown>);
  const both = Object.keys(flags).find((key) => fields.includes(key.split('.')[0]!));
  if (both !== undefined) throw new ConfigError(`${given}: --set ${both} sets the same request field; give one of them`);
  return { ...flags, ...(value as Record<string, unknown>) };
}

/** One key of the overrides, with the argument that gave it. */
interface Given {
  value: HydraValue;
  given: string;
}

/**
 * The overrides as the config they make, as Hydra builds it: `+a.b=1` makes `{a: {b: 1}}`, a key added
 * twice is refused (Hydra: "Could not append to config. An item is already at …"), `++` replaces or
 * merges into what is there, and a bare `key=value` or `~key` changes or removes what a config would
 * have, which the collector's command line has none of.
 */
function overrideTree(overrides: readonly HydraOverride[]): Map<string, Given> {
  const tree = new Map<string, Given>();
  for (const override of overrides) {
    const [top, ...rest] = override.path as [string, ...string[]];
    if (override.kind === 'change' || override.kind === 'delete') {
      const add = override.kind === 'change' ? `+${override.text}` : `nothing (no config is read)`;
      throw new ConfigError(
        `${override.text}: NeMo Gym's collector has no ${override.path.join('.')} to ${override.kind === 'change' ? 'change' : 'remove'} (Hydra: "Could not override"): write ${add}`,
      );
    }
    const existing = tree.get(top);
    const value = nested(rest, override.value!);
    if (existing === undefined) {
      tree.set(top, { value, given: override.text });
      continue;
    }
    existing.value = combine(existing.value, value, override, top);
    existing.given = `${existing.given} ${override.text}`;
  }
  return tree;
}

function nested(path: readonly string[], value: HydraValue): HydraValue {
  return path.reduceRight<HydraValue>((inner, key) => withKey({}, key, inner), value);
}

/** `+` adds only where nothing is; `++` replaces, merging a dict into a dict. */
function combine(existing: HydraValue, added: HydraValue, override: HydraOverride, at: string): HydraValue {
  const dict = (value: HydraValue): value is { [key: string]: HydraValue } => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!dict(existing) || !dict(added)) {
    if (override.kind === 'force-add') return added;
    throw new ConfigError(
      `${override.text}: ${override.path.join('.')} is already given (Hydra: "Could not append to config. An item is already at ${at}"): write ++${override.text.replace(/^\+/, '')} to replace it`,
    );
  }
  const merged = Object.entries(existing).reduce<{ [key: string]: HydraValue }>((copy, [key, value]) => withKey(copy, key, value), {});
  for (const [key, value] of Object.entries(added))
    withKey(merged, key, Object.hasOwn(existing, key) ? combine(existing[key]!, value, override, `${at}.${key}`) : value);
  return merged;
}

/** Sets an own key, `__proto__` included, never the object's prototype. */
function withKey(target: { [key: string]: HydraValue }, key: string, value: HydraValue): { [key: string]: HydraValue } {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

/** The option's value from a NeMo Gym key, through the option's own parser (as a config file's value goes). */
function optionValue(option: Option, key: string, value: HydraValue, given: string): unknown {
  try {
    if (key === 'responses_create_params') return requestOverrides(value);
    if (key === 'config_paths') return configPath(value);
    return configValue(option, value);
  } catch (error) {
    throw new ConfigError(`${given}: ${(error as Error).message}`);
  }
}

/**
 * `responses_create_params` overrides as `--set` entries of its top-level fields: NeMo Gym merges them
 * into each row's request one level deep (`row[…] | overrides`), so a nested value replaces the row's
 * whole field.
 */
function requestOverrides(value: HydraValue): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`expected a mapping of request fields (e.g. +responses_create_params.temperature=0.6), got ${describeValue(value)}`);
  const problem = Object.keys(value)
    .map(prototypeKeyProblem)
    .find((found) => found !== undefined);
  if (problem !== undefined) throw new Error(problem);
  return { ...value };
}

/** `config_paths`: gymnast reads one NeMo Gym config (which may list others under its own `config_paths`). */
function configPath(value: HydraValue): string {
  const paths = Array.isArray(value) ? value : [value];
  if (paths.length !== 1 || typeof paths[0] !== 'string')
    throw new Error(`expected one config path (gymnast's --config reads one; list the others under config_paths in it), got ${describeValue(value)}`);
  return paths[0];
}

/**
 * NeMo Gym's end-to-end collection names its output file (`results/x.jsonl`) and prepares its data in
 * the folder of that name without its extension (`results/x/preprocessed_datasets`); gymnast's
 * `--split` writes one output per dataset into a folder, so that folder is taken.
 */
export function splitOutputFolder(output: string): string {
  return extname(output) === '' ? output : output.slice(0, -extname(output).length);
}
