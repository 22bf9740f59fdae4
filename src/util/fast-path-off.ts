import { installedVersion } from './installed-version.js';

/** A fast path that found its library other than it was written for, and what is used instead. */
export interface FastPathOff {
  /** The fast path, as docs/fast-paths.md names it. */
  fastPath: string;
  /** The package it mirrors or reaches into. */
  library: string;
  /** The version of `library` it was written and measured against. */
  writtenFor: string;
  /** What of the library is not as it was written for, said of the library ("its decoder …"). */
  reason: string;
  /** What runs instead, with the same results ("the library's own steps"). */
  slowPath: string;
}

const said = new Set<string>();

/**
 * Says on stderr, once per fast path and process, that a fast path is off because its library is not
 * what it was written for (an upgrade, or an override of the pinned version), naming the version
 * found: the slow path gives the same results, so without this line a broken fast path would show
 * only as a slower run.
 */
export function sayFastPathOff({ fastPath, library, writtenFor, reason, slowPath }: FastPathOff): void {
  if (said.has(fastPath)) return;
  said.add(fastPath);
  process.stderr.write(
    `gymnast: fast path "${fastPath}" is off: ${library} ${installedVersion(library)} (written for ${writtenFor}): ${reason}; falling back to ${slowPath}: same results, slower. See docs/fast-paths.md.\n`,
  );
}
