import type { FileHandle } from 'node:fs/promises';
import { UnsafeFileError } from '../core/errors/unsafe-file-error.js';
import { readJsonLines, type JsonLine } from '../util/json-lines.js';
import { openRegularFile } from '../util/open-regular-file.js';

/** Said with every refused file: what the viewer reads, so the user knows what to change. */
export const RUN_FILES_RULE = "gymnast view reads only regular files inside the run's folder";

/**
 * Opens one of a run's files for reading. Every file the viewer reads is a direct child of the run's
 * folder, so refusing a link at the name (and anything but a regular file) keeps every read inside
 * the folder, even when a file is swapped for a link while the viewer runs. A refused file is an
 * `UnsafeFileError` naming it; a missing one fails as `open` does (ENOENT).
 */
export async function openRunFile(path: string): Promise<FileHandle> {
  const opened = await openRegularFile(path);
  if ('refused' in opened) throw new UnsafeFileError(path, `${path}: ${opened.refused}; ${RUN_FILES_RULE}`);
  return opened.handle;
}

/** A run's file read whole as text, opened as `openRunFile` opens it. */
export async function readRunFileText(path: string): Promise<string> {
  const file = await openRunFile(path);
  return file.readFile('utf8').finally(() => file.close());
}

/** A run's JSONL file line by line, opened as `openRunFile` opens it. */
export async function* runFileLines(path: string): AsyncGenerator<JsonLine> {
  yield* readJsonLines(path, undefined, await openRunFile(path));
}
