import { createHash, randomUUID } from 'node:crypto';
import { lstat, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
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
const TABLES_VERSION = 2;

/** What a `tokenizer.json` was parsed into: its BPE tables when it has them, else the JSON itself. */
export type ParsedTokenizerJson = { tables: BpeTables; json?: undefined } | { tables?: undefined; json: unknown };

/**
 * `tokenizer.json` as BPE tables, from the cache when a file there was derived from this very file
 * (same path, size, modification and change times, inode: git's test for an unchanged file) and is
 * intact (its SHA-256 matches); else parsed, and the tables written for the next load (atomically:
 * a temporary file renamed over). A cache that cannot be read or written costs only the time.
 * `parse` reads the file's text as the caller wants errors reported.
 */
export async function readTokenizerJson(path: string, cacheDirectory: string | undefined, parse: (path: string) => Promise<unknown>): Promise<ParsedTokenizerJson> {
  if (cacheDirectory === undefined) return parsed(await parse(path));
  const absolute = resolve(path);
  const file = await stat(absolute).catch(() => undefined);
  if (file === undefined) return parsed(await parse(path));
  const about = { version: TABLES_VERSION, path: absolute, size: file.size, mtimeMs: file.mtimeMs, ctimeMs: file.ctimeMs, ino: file.ino, dev: file.dev };
  const cached = join(cacheDirectory, `tokenizer-v${TABLES_VERSION}-${createHash('sha256').update(absolute).digest('hex').slice(0, 32)}.bin`);
  const bytes = (await isOwnFile(cached)) ? await readFile(cached).catch(() => undefined) : undefined;
  const tables = bytes === undefined ? undefined : decodedOrNothing(bytes, about);
  if (tables !== undefined) return { tables };
  const result = parsed(await parse(path));
  if (result.tables !== undefined) await writeAtomically(cached, encodeBpeTables(result.tables, about)).catch(() => undefined);
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

/**
 * Only a regular file of this user's, writable by no one else, is read: the tables decide every
 * token id, and a SHA-256 in the file catches damage, not a file someone else planted in a shared
 * cache folder (or a link to one).
 */
async function isOwnFile(path: string): Promise<boolean> {
  const file = await lstat(path).catch(() => undefined);
  if (file === undefined || !file.isFile() || (file.mode & 0o022) !== 0) return false;
  const uid = process.getuid?.();
  return uid === undefined || file.uid === uid;
}

async function writeAtomically(path: string, bytes: Buffer): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
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
