import { createHash, randomUUID } from 'node:crypto';
import type { Stats } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { openRegularFile } from '../util/open-regular-file.js';
import { bpeTables, decodeBpeTables, encodeBpeTables, type BpeTables } from './bpe-tables.js';

/**
 * Where derived tokenizer tables are kept: `$GYMNAST_CACHE_DIR`, else `$XDG_CACHE_HOME/gymnast`,
 * else `~/.cache/gymnast`; `GYMNAST_CACHE_DIR=off` keeps none.
 */
export function defaultCacheDirectory(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.GYMNAST_CACHE_DIR === 'off') return undefined;
  if (env.GYMNAST_CACHE_DIR) return env.GYMNAST_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'gymnast');
  try {
    return join(homedir(), '.cache', 'gymnast');
  } catch {
    // No home directory (a bare container user): no cache, as with `off`.
    return undefined;
  }
}

/**
 * Bump when the tables or how `HfTokenizer` builds from them change: old files are then never read.
 * Part of the file's name too, so builds of different versions sharing a cache do not overwrite each other's.
 */
const TABLES_VERSION = 3;

/** What a `tokenizer.json` was parsed into: its BPE tables when it has them, else the JSON itself. */
export type ParsedTokenizerJson = { tables: BpeTables; json?: undefined } | { tables?: undefined; json: unknown };

/** Says why a cache folder was refused; by default one line on stderr. */
export type CacheNotice = (message: string) => void;

const noticeOnStderr: CacheNotice = (message) => process.stderr.write(`gymnast: ${message}\n`);

/**
 * `tokenizer.json` as BPE tables, from the cache when a file there was derived from this very file
 * (same path, size, modification and change times, inode: git's test for an unchanged file) and is
 * intact (the SHA-256 at its end matches all before it); else parsed, and the tables written for the
 * next load (atomically: a temporary file renamed over). A cache that cannot be read or written costs
 * only the time. A cache folder others could write to is not used at all (said once through
 * `onNotice`): the tables decide every token id. `parse` reads the file's text as the caller wants
 * errors reported.
 */
export async function readTokenizerJson(
  path: string,
  cacheDirectory: string | undefined,
  parse: (path: string) => Promise<unknown>,
  onNotice: CacheNotice = noticeOnStderr,
): Promise<ParsedTokenizerJson> {
  if (cacheDirectory === undefined) return parsed(await parse(path));
  const absolute = resolve(path);
  const file = await stat(absolute).catch(() => undefined);
  if (file === undefined) return parsed(await parse(path));
  const about = { version: TABLES_VERSION, path: absolute, size: file.size, mtimeMs: file.mtimeMs, ctimeMs: file.ctimeMs, ino: file.ino, dev: file.dev };
  const cached = join(cacheDirectory, `tokenizer-v${TABLES_VERSION}-${createHash('sha256').update(absolute).digest('hex').slice(0, 32)}.bin`);
  const folder = await checkFolder(cacheDirectory, false);
  const bytes = folder === 'own' ? await readOwnFile(cached) : undefined;
  const tables = bytes === undefined ? undefined : decodedOrNothing(bytes, about);
  if (tables !== undefined) return { tables };
  const result = parsed(await parse(path));
  // Only a tokenizer with tables to keep creates the folder, or hears that it is refused.
  if (result.tables === undefined) return result;
  const writable = folder === 'missing' ? await checkFolder(cacheDirectory, true) : folder;
  if (writable === 'own') await writeAtomically(cached, encodeBpeTables(result.tables, about)).catch(() => undefined);
  else if (writable !== 'missing') noticeOnce(cacheDirectory, writable, onNotice);
  return result;
}

function parsed(json: unknown): ParsedTokenizerJson {
  const tables = bpeTables(json);
  return tables === undefined ? { json } : { tables };
}

/** A damaged or foreign file is a cache miss, whatever it holds: never an error for the load. */
function decodedOrNothing(bytes: Buffer, about: unknown): BpeTables | undefined {
  try {
    return decodeBpeTables(bytes, about);
  } catch {
    return undefined;
  }
}

/** This process's user; undefined where files have no POSIX owner and mode bits (Windows). */
const uid = process.getuid?.();

/**
 * Whether the cache folder is this user's alone (`own`), missing (or unusable: no permission, a
 * read-only disk, where every write fails and costs only the time), or refused, and why: whoever can
 * write to the folder can replace the file in it. As strict as ssh's StrictModes and simpler: a
 * sticky world-writable folder (/tmp) is refused too. `create` makes it first, private.
 */
async function checkFolder(folder: string, create: boolean): Promise<'own' | 'missing' | FolderRefusal> {
  if (create) await mkdir(folder, { recursive: true, mode: 0o700 }).catch(() => undefined);
  const found = await stat(folder).catch(() => undefined);
  if (found === undefined) return 'missing';
  if (!found.isDirectory()) return { reason: 'it is not a folder', chmodFixes: false };
  return notOwnAlone(found) ?? 'own';
}

interface FolderRefusal {
  reason: string;
  /** Whether `chmod go-w` makes it safe (not for a folder of another user's). */
  chmodFixes: boolean;
}

/** Whether `stats` (of the folder, or of the opened file) are this user's, writable by no one else. */
function notOwnAlone(stats: Stats): FolderRefusal | undefined {
  if (uid === undefined) return undefined;
  if (stats.uid !== uid) return { reason: `it is owned by another user (uid ${stats.uid}), who could change the token ids a run trains on`, chmodFixes: false };
  if ((stats.mode & 0o022) !== 0)
    return { reason: `it is writable by others (mode ${(stats.mode & 0o7777).toString(8)}), who could change the token ids a run trains on`, chmodFixes: true };
  return undefined;
}

const noticed = new Set<string>();

function noticeOnce(folder: string, refusal: FolderRefusal, onNotice: CacheNotice): void {
  if (noticed.has(folder)) return;
  noticed.add(folder);
  const fix = `${refusal.chmodFixes ? `chmod go-w ${folder}, or ` : ''}set GYMNAST_CACHE_DIR to a folder of your own (GYMNAST_CACHE_DIR=off for none)`;
  onNotice(`not using the tokenizer cache ${folder}: ${refusal.reason}; the tables are built without it at each load. To fix: ${fix}`);
}

/**
 * The bytes of `path` when it is a regular file of this user's that no one else can write: checked
 * on the descriptor that is then read, since a name checked and then opened again could have been
 * swapped for a link in between. Anything else is a miss.
 */
async function readOwnFile(path: string): Promise<Buffer | undefined> {
  const opened = await openRegularFile(path).catch(() => undefined);
  if (opened === undefined || 'refused' in opened) return undefined;
  try {
    return notOwnAlone(opened.stats) === undefined ? await opened.handle.readFile() : undefined;
  } catch {
    return undefined;
  } finally {
    await opened.handle.close();
  }
}

/** Into the folder `checkFolder` found or made this user's alone. */
async function writeAtomically(path: string, bytes: Buffer): Promise<void> {
  // Unguessable and created fresh (`wx`), so a link planted at the name cannot redirect the write.
  const temporary = `${path}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, bytes, { flag: 'wx', mode: 0o600 });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
