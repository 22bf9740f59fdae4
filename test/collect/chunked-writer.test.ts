import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { ChunkedWriter } from '../../src/collect/result-files.js';

const dir = mkdtempSync(join(tmpdir(), 'gymnast-chunked-writer-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function writeAll(path: string, pieces: Iterable<string>): Promise<void> {
  const file = createWriteStream(path);
  const writer = new ChunkedWriter(file);
  for (const piece of pieces) await writer.write(piece);
  await writer.flush();
  file.end();
  await finished(file);
}

describe('ChunkedWriter (aggregate files, health verdicts, exports)', () => {
  it('writes every piece as UTF-8, in order, across chunk boundaries: multi-byte characters and surrogate pairs included', async () => {
    const pieces = Array.from({ length: 40_000 }, (_, i) => `{"i":${i},"text":"${'é中🙂'.repeat(i % 7)}"}\n`);
    pieces.push('x'.repeat(3 << 20), '🙂'.repeat(1 << 19), '');
    const path = join(dir, 'text.jsonl');
    await writeAll(path, pieces);
    assert.ok(readFileSync(path).equals(Buffer.from(pieces.join(''))));
  });

  it('hands the stream bytes in bounded chunks, one write at a time: 16 MB in small pieces is never one write, nor a string', async () => {
    const piece = `${JSON.stringify({ group: 'x'.repeat(1_500) }, null, 2)}\n`;
    const pieces = Math.ceil((16 << 20) / piece.length);
    const chunks: number[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const out = new Writable({
      write: (chunk: unknown, _encoding, callback) => {
        assert.ok(Buffer.isBuffer(chunk), 'bytes, not a string');
        chunks.push(chunk.length);
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        setImmediate(() => {
          inFlight -= 1;
          callback();
        });
      },
    });
    const writer = new ChunkedWriter(out);
    for (let i = 0; i < pieces; i++) await writer.write(piece);
    await writer.flush();
    assert.equal(
      chunks.reduce((sum, length) => sum + length, 0),
      pieces * piece.length,
    );
    assert.ok(chunks.length >= 8 && Math.max(...chunks) <= 4 << 20, `${chunks.length} writes, the largest ${Math.max(...chunks)} bytes`);
    assert.equal(mostInFlight, 1);
  });

  it('fails the next write after the stream failed (a full disk), instead of crashing the process', async () => {
    const failing = new Writable({
      write: (_chunk, _encoding, callback) => callback(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })),
    });
    const writer = new ChunkedWriter(failing);
    await writer.write('a line\n');
    await assert.rejects(writer.flush(), /ENOSPC/);
    await assert.rejects(writer.write('x'.repeat(2 << 20)), /ENOSPC/);
  });
});
