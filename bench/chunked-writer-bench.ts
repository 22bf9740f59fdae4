import { Writable } from 'node:stream';
import { getHeapSpaceStatistics } from 'node:v8';
import { ChunkedWriter } from '../src/collect/result-files.js';
import type { BenchResult } from './bench-result.js';

const TOTAL = 16 << 20;
const CHUNK = 1 << 20;

/** Both of V8's large-object spaces: a string over ~128 KB is born in the young one, and promoted to the old one (freed by full collections only) if a scavenge finds it alive. */
const largeObjectBytes = () =>
  getHeapSpaceStatistics().reduce(
    (sum, space) => sum + (space.space_name === 'large_object_space' || space.space_name === 'new_large_object_space' ? space.space_used_size : 0),
    0,
  );

/** A stream that takes each chunk on the next turn of the event loop, as a file does, and keeps nothing. */
const sink = () => new Writable({ write: (_chunk, _encoding, callback) => setImmediate(callback) });

/** The writer ChunkedWriter replaced: each chunk's pieces joined into one string, then written. */
class JoiningWriter {
  readonly #out: Writable;
  #parts: string[] = [];
  #pending = 0;

  constructor(out: Writable) {
    this.#out = out;
  }

  async write(text: string): Promise<void> {
    this.#parts.push(text);
    this.#pending += text.length;
    if (this.#pending >= CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    const chunk = this.#parts.join('');
    this.#parts = [];
    this.#pending = 0;
    await new Promise<void>((resolve, reject) => this.#out.write(chunk, (error) => (error ? reject(error) : resolve())));
  }
}

/** The most the large-object spaces grew while 16 MB went out in 1.5 KB pieces. */
async function largeObjectGrowth(writer: { write(text: string): Promise<void>; flush(): Promise<void> }): Promise<number> {
  const piece = `${JSON.stringify({ group: 'x'.repeat(1_500) }, null, 2)}\n`;
  const before = largeObjectBytes();
  let most = 0;
  for (let written = 0; written < TOTAL; written += piece.length) {
    await writer.write(piece);
    most = Math.max(most, largeObjectBytes() - before);
  }
  await writer.flush();
  return most / 1e6;
}

/**
 * Why aggregate files are written through ChunkedWriter (issue 13): joined into strings, each 1 MiB
 * chunk is a flat string in V8's large-object space, which only a full collection frees.
 */
export async function chunkedWriterMemory(): Promise<BenchResult> {
  const joined = await largeObjectGrowth(new JoiningWriter(sink()));
  const chunked = await largeObjectGrowth(new ChunkedWriter(sink()));
  return {
    name: "aggregate writes: growth of V8's large-object spaces writing 16 MB in 1.5 KB pieces, ChunkedWriter vs joining each 1 MiB chunk into a string",
    baseline: { label: 'joined strings', value: joined, unit: 'MB' },
    measured: { label: 'ChunkedWriter', value: chunked, unit: 'MB' },
    lowerIsBetter: true,
  };
}
