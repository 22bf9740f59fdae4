import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { getHeapSpaceStatistics } from 'node:v8';
import { ChunkedWriter } from '../../src/collect/result-files.js';

const dir = mkdtempSync(join(tmpdir(), 'gymnast-chunked-writer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function writeAll(path: string, pieces: Iterable<string>, afterEach?: () => void): Promise<void> {
  const file = createWriteStream(path);
  const writer = new ChunkedWriter(file);
  for (const piece of pieces) {
    await writer.write(piece);
    afterEach?.();
  }
  await writer.flush();
  file.end();
  await finished(file);
}

/** Both of V8's large-object spaces: a string over ~128 KB is born in the young one, and promoted to the old one (freed by full collections only) if a scavenge finds it alive. */
const largeObjectBytes = () => getHeapSpaceStatistics().reduce((sum, space) => sum + (space.space_name === 'large_object_space' || space.space_name === 'new_large_object_space' ? space.space_used_size : 0), 0);

describe('ChunkedWriter (aggregate files, health verdicts, exports)', () => {
  it('writes every piece as UTF-8, in order, across chunk boundaries: multi-byte characters and surrogate pairs included', async () => {
    const pieces = Array.from({ length: 40_000 }, (_, i) => `{"i":${i},"text":"${'é中🙂'.repeat(i % 7)}"}\n`);
    pieces.push('x'.repeat(3 << 20), '🙂'.repeat(1 << 19), '');
    const path = join(dir, 'text.jsonl');
    await writeAll(path, pieces);
    assert.ok(readFileSync(path).equals(Buffer.from(pieces.join(''))));
  });

  it('never holds a chunk as one flat string: writing 16 MB in small pieces leaves V8\'s large-object spaces as they were', async () => {
    const piece = `${JSON.stringify({ group: 'x'.repeat(1_500) }, null, 2)}\n`;
    const before = largeObjectBytes();
    let most = 0;
    await writeAll(join(dir, 'large.json'), Array.from({ length: Math.ceil((16 << 20) / piece.length) }, () => piece), () => (most = Math.max(most, largeObjectBytes() - before)));
    assert.ok(most < 2 << 20, `large-object spaces grew by up to ${(most / 1e6).toFixed(1)} MB`);
  });

  it('fails the next write after the stream failed (a full disk), instead of crashing the process', async () => {
    const failing = new Writable({ write: (_chunk, _encoding, callback) => callback(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })) });
    const writer = new ChunkedWriter(failing);
    await writer.write('a line\n');
    await assert.rejects(writer.flush(), /ENOSPC/);
    await assert.rejects(writer.write('x'.repeat(2 << 20)), /ENOSPC/);
  });
});
