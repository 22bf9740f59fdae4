import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { DurationSeconds } from '../../core/duration.js';
import { ConfigFileError, type ConfigFileIssue } from '../../core/errors/config-file-error.js';
import { parseWithIssues } from '../../core/schema-issues.js';
import { didYouMean } from '../../util/closest-name.js';
import { interpolateConfig } from './interpolate-config.js';
import { DATASET_TYPES } from './dataset-types.js';

/** NeMo Gym's three server types, the keys under an instance's name. */
export const SERVER_TYPES = ['responses_api_models', 'resources_servers', 'responses_api_agents'] as const;
export type ServerType = (typeof SERVER_TYPES)[number];

export { DATASET_TYPES };

/**
 * Top-level keys that are settings, not server instances (NeMo Gym's `NEMO_GYM_RESERVED_TOP_LEVEL_KEYS`,
 * and the conventional policy keys model configs interpolate). gymnast reads `head_server`,
 * `default_host` and `config_paths`; the others are accepted and passed on in the resolved config.
 */
export const RESERVED_TOP_LEVEL_KEYS: ReadonlySet<string> = new Set([
  'config_paths',
  'entrypoint',
  'default_host',
  'head_server',
  'disallowed_ports',
  'head_server_deps',
  'python_version',
  'use_absolute_ip',
  'hf_token',
  'ray_head_node_address',
  'port_range_low',
  'port_range_high',
  'dry_run',
  'results_dir',
  'cache_dir',
  'observability_enabled',
  'model_call_capture_dir',
  'token_id_capture',
  'skip_verification',
  'skip_verification_reward',
  'model_endpoint_readiness_timeout_seconds',
  'policy_base_url',
  'policy_api_key',
  'policy_model_name',
]);

const Port = z.number().int().min(0).max(65_535);

/** `{type, name}`: one server naming another. */
export const ServerRef = z.strictObject({ type: z.enum(SERVER_TYPES), name: z.string().min(1) });
export type ServerRef = z.infer<typeof ServerRef>;

/** One dataset of an agent; a `license` is required for train and validation data, as NeMo Gym requires it. */
export const DatasetConfig = z
  .looseObject({
    name: z.string().min(1),
    type: z.enum(DATASET_TYPES),
    jsonl_fpath: z.string().min(1),
    num_repeats: z.number().int().min(1).optional(),
    license: z.string().min(1).optional(),
  })
  .refine((dataset) => dataset.license !== undefined || (dataset.type !== 'train' && dataset.type !== 'validation'), {
    error: 'expected a license (NeMo Gym requires one for train and validation datasets)',
    path: ['license'],
  });
export type DatasetConfig = z.infer<typeof DatasetConfig>;

/**
 * An implementation's config. NeMo Gym's own fields are kept as they are (`domain`, `description`,
 * …); gymnast reads these. `command` makes the server an external process gymnast spawns.
 */
export const ImplConfig = z.looseObject({
  entrypoint: z.string().optional(),
  host: z.string().min(1).optional(),
  port: Port.optional(),
  resources_server: ServerRef.optional(),
  model_server: ServerRef.optional(),
  datasets: z.array(DatasetConfig).optional(),
  /** argv of an external server; `{host}` and `{port}` in it are replaced by where it must listen. */
  command: z.array(z.string().min(1)).min(1).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  /** What gymnast GETs until the external server answers (default `/`). */
  health_path: z.string().startsWith('/', { error: 'expected a path starting with /' }).optional(),
  /** How long an external server has to answer (default 60). */
  startup_timeout_seconds: DurationSeconds.optional(),
});
export type ImplConfig = z.infer<typeof ImplConfig>;

const HeadServer = z.strictObject({ host: z.string().min(1).default('127.0.0.1'), port: Port.default(11_000) });

/** A server instance: `name: {<type>: {<impl>: {...}}}`. */
export interface ServerInstance {
  name: string;
  type: ServerType;
  impl: string;
  config: ImplConfig;
  /** Its YAML path (`name.type.impl`), for errors. */
  path: string;
}

/** A config file read, merged with its `config_paths`, interpolated and checked. */
export interface GymConfig {
  file: string;
  /** The whole config after merging and interpolation: what the head server publishes (with ports filled in). */
  resolved: Record<string, unknown>;
  headServer: { host: string; port: number };
  defaultHost: string;
  instances: ServerInstance[];
}

/** Reads a NeMo Gym-shaped config file; every problem is a `ConfigFileError` naming the file and the YAML path. */
export function loadServerConfig(file: string, env: Readonly<Record<string, string | undefined>> = process.env): GymConfig {
  const merged = readMerged(resolve(file), [], file);
  return checkConfig(file, merged, env);
}

/** Parses config text (for callers that have it already); `file` names it in errors. */
export function parseServerConfig(text: string, file: string, env: Readonly<Record<string, string | undefined>> = process.env): GymConfig {
  return checkConfig(file, parseYamlObject(text, file), env);
}

function checkConfig(file: string, merged: Record<string, unknown>, env: Readonly<Record<string, string | undefined>>): GymConfig {
  const { value: resolved, issues } = interpolateConfig(merged, env);
  const head = parseWithIssues(HeadServer, resolved.head_server ?? {});
  if ('issues' in head) issues.push(...head.issues.map((issue) => ({ path: joinPath('head_server', issue.field), expected: issue.message })));
  const defaultHost = resolved.default_host ?? '127.0.0.1';
  if (typeof defaultHost !== 'string' || defaultHost === '')
    issues.push({ path: 'default_host', expected: `expected a host name, got ${JSON.stringify(defaultHost)}` });
  const instances = readInstances(resolved, issues);
  issues.push(...refIssues(instances));
  if (issues.length > 0) throw new ConfigFileError(file, issues);
  return { file, resolved, headServer: 'data' in head ? head.data : { host: '127.0.0.1', port: 11_000 }, defaultHost: defaultHost as string, instances };
}

/** Every non-reserved top-level key whose value is a mapping is a server instance (other values are variables). */
function readInstances(config: Record<string, unknown>, issues: ConfigFileIssue[]): ServerInstance[] {
  const instances: ServerInstance[] = [];
  for (const [name, value] of Object.entries(config)) {
    if (RESERVED_TOP_LEVEL_KEYS.has(name) || !isMapping(value)) continue;
    const types = Object.keys(value);
    if (types.length !== 1) {
      issues.push({
        path: name,
        expected: `a server instance with exactly one type key (${SERVER_TYPES.join(', ')}), got ${types.length === 0 ? 'none' : types.join(', ')}`,
      });
      continue;
    }
    const type = types[0]!;
    if (!(SERVER_TYPES as readonly string[]).includes(type)) {
      issues.push({ path: `${name}.${type}`, expected: `a server type: one of ${SERVER_TYPES.join(', ')}${didYouMean(type, SERVER_TYPES)}` });
      continue;
    }
    const impls = value[type];
    if (!isMapping(impls) || Object.keys(impls).length !== 1) {
      issues.push({ path: `${name}.${type}`, expected: 'exactly one implementation key (e.g. simple_agent: {...})' });
      continue;
    }
    const [impl, raw] = Object.entries(impls)[0]!;
    const path = `${name}.${type}.${impl}`;
    const parsed = parseWithIssues(ImplConfig, raw ?? {});
    if ('issues' in parsed) {
      issues.push(...parsed.issues.map((issue) => ({ path: joinPath(path, issue.field), expected: issue.message })));
      continue;
    }
    instances.push({ name, type: type as ServerType, impl, config: parsed.data, path });
  }
  return instances;
}

/** Server refs must name a defined instance of the type they say. */
function refIssues(instances: readonly ServerInstance[]): ConfigFileIssue[] {
  const issues: ConfigFileIssue[] = [];
  for (const instance of instances) {
    for (const key of ['resources_server', 'model_server'] as const) {
      const ref = instance.config[key];
      if (!ref) continue;
      const candidates = instances.filter((other) => other.type === ref.type).map((other) => other.name);
      if (candidates.includes(ref.name)) continue;
      const elsewhere = instances.find((other) => other.name === ref.name);
      issues.push({
        path: `${instance.path}.${key}.name`,
        expected: elsewhere
          ? `a ${ref.type} instance; "${ref.name}" is a ${elsewhere.type}`
          : `the name of a defined ${ref.type} instance (${candidates.join(', ') || 'there is none'}), got "${ref.name}"${didYouMean(ref.name, candidates)}`,
      });
    }
  }
  return issues;
}

/**
 * The file merged over its `config_paths` (relative to it), as NeMo Gym merges: included configs first,
 * in order, each overridden by whatever includes it. `seen` breaks include cycles.
 */
function readMerged(path: string, seen: readonly string[], shownAs: string): Record<string, unknown> {
  if (seen.includes(path)) throw new ConfigFileError(shownAs, [{ path: 'config_paths', expected: `no include cycle: ${[...seen, path].join(' → ')}` }]);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigFileError(shownAs, [{ path: '', expected: `a readable file (${(error as NodeJS.ErrnoException).code ?? String(error)})` }]);
  }
  const own = parseYamlObject(text, shownAs);
  const includes = own.config_paths ?? [];
  if (!Array.isArray(includes) || includes.some((item) => typeof item !== 'string'))
    throw new ConfigFileError(shownAs, [{ path: 'config_paths', expected: 'a list of config file paths' }]);
  let merged: Record<string, unknown> = {};
  for (const include of includes as string[]) {
    const target = resolve(dirname(path), include);
    merged = deepMerge(merged, readMerged(target, [...seen, path], include));
  }
  return deepMerge(merged, own);
}

function parseYamlObject(text: string, file: string): Record<string, unknown> {
  const lines = new LineCounter();
  const document = parseDocument(text, { prettyErrors: false, lineCounter: lines });
  const error = document.errors[0];
  if (error) {
    const at = lines.linePos(error.pos[0]);
    throw new ConfigFileError(file, [{ path: at ? `line ${at.line}, column ${at.col}` : '', expected: `valid YAML: ${error.message.split('\n')[0]}` }]);
  }
  const value: unknown = document.toJS();
  if (value === null || value === undefined) return {};
  if (!isMapping(value)) throw new ConfigFileError(file, [{ path: '', expected: 'a mapping of server instances and settings' }]);
  return value;
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key];
    merged[key] = isMapping(current) && isMapping(value) ? deepMerge(current, value) : value;
  }
  return merged;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function joinPath(path: string, field: string): string {
  return field ? `${path}.${field}` : path;
}
