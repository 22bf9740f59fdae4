/*
 * Preloaded into a CLI run by the crash specs (`node --import <this file, bundled> bin/gymnast.js …`,
 * stdin and stderr piped): after each line the run writes to stderr, it waits for one byte on its stdin
 * before it goes on. The spec reads the line, then answers it (the run goes on) or kills the run, which
 * is then still at the moment the line reports however late a busy machine lets the spec read it: a
 * kill chosen from the run's own progress lands there, never after the run moved on or ended.
 * The end of stdin (the spec is gone) lets the run go on unpaused.
 */
import { readSync, writeSync } from 'node:fs';

const STDIN = 0;
const STDERR = 2;
const NEWLINE = 0x0a;
const answer = Buffer.alloc(1);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
let unpaused = false;

/** One byte from the spec; a pipe left non-blocking answers EAGAIN until it comes. */
function awaitAnswer(): void {
  for (;;) {
    try {
      if (readSync(STDIN, answer, 0, 1, null) === 0) unpaused = true;
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(sleeper, 0, 0, 1);
    }
  }
}

// Written at once (not queued behind the event loop, which the wait blocks) and answered line by line:
// a write of two lines waits twice, as the spec answers twice.
process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
  const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
  for (let written = 0; written < bytes.length; ) written += writeSync(STDERR, bytes, written);
  const lines = bytes.filter((byte) => byte === NEWLINE).length;
  for (let line = 0; line < lines && !unpaused; line++) awaitAnswer();
  const done = rest.find((argument): argument is () => void => typeof argument === 'function');
  if (done) process.nextTick(done);
  return true;
}) as typeof process.stderr.write;
