import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { z } from 'zod';
import { ConfigError } from '../core/errors/config-error.js';
import type { MaterializedRow } from '../core/result-row.js';
import type { collectPaths } from './collect-paths.js';
import { writeFileAtomic } from '../util/write-file-atomic.js';
import { writeFailure } from './write-failure.js';

type CollectPaths = ReturnType<typeof collectPaths>;

/**
 * What makes two runs the same run: the plan (sha256 of the materialized inputs) and the settings
 * that shape a rollout. Written to `<stem>_run.json`; `--resume` refuses a run that differs.
 */
export const RunIdentity = z.object({
  plan_sha256: z.string(),
  rollouts: z.number().int().nonnegative(),
  config: z.record(z.string(), z.unknown()),
});
export type RunIdentity = z.infer<typeof RunIdentity>;

/**
 * Writes the materialized inputs (hashing them: the run's identity), empties the result files, records
 * the identity. A write the OS refuses (a full disk) is a `WriteFailedError`; the run had not started.
 */
export async function startFresh(paths: CollectPaths, plan: AsyncIterable<MaterializedRow>, config: Record<string, unknown>): Promise<RunIdentity> {
  // The old identity goes first: a crash while the new plan is written must not leave a resumable-looking run.
  rmSync(paths.run, { force: true });
  const { hash, rollouts } = await failingAs(paths.materialized, () => writePlan(paths.materialized, plan));
  writeFileSync(paths.output, '');
  writeFileSync(paths.failures, '');
  const identity = { plan_sha256: hash, rollouts, config };
  await failingAs(paths.run, () => writeFileAtomic(paths.run, `${JSON.stringify(identity, null, 2)}\n`));
  return identity;
}

async function writePlan(path: string, plan: AsyncIterable<MaterializedRow>): Promise<{ hash: string; rollouts: number }> {
  const hash = createHash('sha256');
  const file = createWriteStream(path);
  // Held here so that a write failing while the plan is being read cannot crash the process unheard.
  let failed: Error | undefined;
  file.on('error', (error) => (failed = error));
  let rollouts = 0;
  try {
    for await (const chunk of planChunks(plan)) {
      if (failed) throw failed;
      hash.update(chunk.text);
      rollouts += chunk.rows;
      if (!file.write(chunk.text)) await once(file, 'drain');
    }
  } finally {
    file.end();
  }
  await finished(file);
  return { hash: hash.digest('hex'), rollouts };
}

/** About how much of the plan is hashed and written at once: a call each per row cost more than the rows' own text. */
const CHUNK_LENGTH = 64 * 1024;

/** The plan's JSON lines, joined into chunks of about `CHUNK_LENGTH` characters. */
async function* planChunks(plan: AsyncIterable<MaterializedRow>): AsyncGenerator<{ text: string; rows: number }> {
  let text = '';
  let rows = 0;
  for await (const row of plan) {
    text += `${JSON.stringify(row)}\n`;
    rows += 1;
    if (text.length >= CHUNK_LENGTH) {
      yield { text, rows };
      text = '';
      rows = 0;
    }
  }
  if (rows > 0) yield { text, rows };
}

/** Runs a write of `path`, turning an OS refusal into a `WriteFailedError` that says how to go on. */
async function failingAs<T>(path: string, write: () => T | Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw writeFailure(path, error, 'free space, then rerun with --overwrite (the run had not started)');
  }
}

/** A run can be resumed when an earlier one recorded its identity and plan. */
export const canResume = (paths: CollectPaths) => existsSync(paths.run) && existsSync(paths.materialized);

/**
 * A run with a plan and rows but no recorded identity: one NeMo Gym's collector started (or a gymnast
 * run whose `_run.json` was deleted). NeMo Gym resumes from exactly these two files
 * (`002 rollout_collection.py run_from_config`: `resume_from_cache` and both paths exist).
 */
export const isUnrecordedRun = (paths: CollectPaths) => !existsSync(paths.run) && existsSync(paths.materialized) && existsSync(paths.output);

/** How `--resume` takes up an output: a run gymnast recorded, one it did not (NeMo Gym's), or nothing to resume. */
export type ResumeKind = 'recorded' | 'unrecorded' | 'none';

export function resumeKind(paths: CollectPaths): ResumeKind {
  if (canResume(paths)) return 'recorded';
  return isUnrecordedRun(paths) ? 'unrecorded' : 'none';
}

/**
 * Recorded for readers of the run (which tokenizer checks which rows), not a setting that shapes a
 * rollout: a run recorded before gymnast wrote it resumes.
 */
const FOR_READERS: ReadonlySet<string> = new Set(['remote_agents']);

/** What a run recorded before a setting existed ran with: an older gymnast ended an episode on a cut generation. */
const BEFORE_RECORDED: Readonly<Record<string, unknown>> = { on_max_tokens: 'end' };

function isChanged(key: string, previous: Record<string, unknown>, now: Record<string, unknown>): boolean {
  if (FOR_READERS.has(key) && !(key in previous)) return false;
  return JSON.stringify(previousValue(previous, key)) !== JSON.stringify(now[key]);
}

function previousValue(config: Record<string, unknown>, key: string): unknown {
  return key in config ? config[key] : BEFORE_RECORDED[key];
}

function recordedValue(config: Record<string, unknown>, key: string): string {
  if (key in config) return JSON.stringify(config[key]);
  return key in BEFORE_RECORDED
    ? `${JSON.stringify(BEFORE_RECORDED[key])} (a run of an older gymnast, which did not record it)`
    : 'not recorded (a run of an older gymnast)';
}

/** The recorded identity, if the plan and config now are the same; a ConfigError naming what changed otherwise. */
export async function checkSameRun(paths: CollectPaths, plan: AsyncIterable<MaterializedRow>, config: Record<string, unknown>): Promise<RunIdentity> {
  const previous = readIdentity(paths.run);
  const hash = createHash('sha256');
  let rollouts = 0;
  for await (const chunk of planChunks(plan)) {
    hash.update(chunk.text);
    rollouts += chunk.rows;
  }
  if (previous.plan_sha256 !== hash.digest('hex')) {
    throw new ConfigError(
      `cannot resume ${paths.output}: the planned rollouts changed (${previous.rollouts} then, ${rollouts} now; input rows, --limit, --num-repeats, --set, --add-seed or the prompt config differ). Start afresh with --overwrite instead of --resume, or restore the original options.`,
    );
  }
  if ((await fileSha256(paths.materialized)) !== previous.plan_sha256) {
    throw new ConfigError(
      `cannot resume ${paths.output}: ${paths.materialized} is not the plan the run recorded (cut short by a crash while it was written, or edited). Start afresh with --overwrite instead of --resume.`,
    );
  }
  const changed = Object.keys({ ...previous.config, ...config }).filter((key) => isChanged(key, previous.config, config));
  if (changed.length > 0) {
    throw new ConfigError(
      `cannot resume ${paths.output}: ${changed.map((key) => `${key} was ${recordedValue(previous.config, key)}, now ${JSON.stringify(config[key])}`).join('; ')}`,
    );
  }
  return previous;
}

function readIdentity(path: string): RunIdentity {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(
      `cannot resume: ${path} is not valid JSON (${(error as Error).message.replace(/\s+/g, ' ')}); start afresh with --overwrite instead of --resume`,
    );
  }
  const parsed = RunIdentity.safeParse(value);
  if (!parsed.success)
    throw new ConfigError(
      `cannot resume: ${path}: ${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}; start afresh with --overwrite instead of --resume`,
    );
  return parsed.data;
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** What a run's `_run.json` says sampled its rows: the policy, and the agents an agent server ran with a model of its own. */
export interface RecordedSampler {
  policy?: string;
  remoteAgents: string[];
}

/**
 * What sampled a run's rows as its `_run.json` recorded it, for readers that only want to know it (the
 * health decode check); nothing known when the file is absent or unreadable, since they can do without it.
 */
export function recordedSampler(runFile: string): RecordedSampler {
  if (!existsSync(runFile)) return { remoteAgents: [] };
  try {
    return samplerInRunFile(readFileSync(runFile, 'utf8'));
  } catch {
    return { remoteAgents: [] };
  }
}

/** What sampled a run's rows, from the text of its `_run.json` (for the viewer, which opens it without following links); nothing known when it cannot be read. */
export function samplerInRunFile(text: string): RecordedSampler {
  try {
    const { policy, remote_agents: remote } = RunIdentity.parse(JSON.parse(text)).config;
    const remoteAgents = Array.isArray(remote) ? remote.filter((name): name is string => typeof name === 'string') : [];
    return { ...(typeof policy === 'string' ? { policy } : {}), remoteAgents };
  } catch {
    return { remoteAgents: [] };
  }
}
