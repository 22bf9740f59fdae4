import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readJsonLineEntries, readJsonLines, type ReadLineOptions } from '../../src/util/json-lines.js';

const dir = mkdtempSync(join(tmpdir(), 'gymnast-json-lines-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A file stream hands over 64 KiB at a time: lines and characters that straddle a chunk's end are the cases to get right. */
const CHUNK = 64 * 1024;

let files = 0;
async function entries(content: string | Buffer, options: Partial<ReadLineOptions> = {}) {
  const path = join(dir, `${files++}.jsonl`);
  writeFileSync(path, content);
  const read = [];
  for await (const entry of readJsonLineEntries(path, { maxLineBytes: 1024 * 1024, checkUtf8: true, ...options })) read.push(entry);
  return read;
}

describe('reading a JSONL file line by line (readJsonLineEntries)', () => {
  it('gives the non-blank lines with their numbers, without a byte order mark or the \\r of CRLF, marking a last line without its newline', async () => {
    assert.deepEqual(await entries('\uFEFF{"a":1}\r\n\n  \r\n{"b":"é"}\n{"c":3}'), [
      { line: 1, text: '{"a":1}' },
      { line: 4, text: '{"b":"é"}' },
      { line: 5, text: '{"c":3}', unterminated: true },
    ]);
    // A last \r ends its line, as Python's universal newlines read it.
    assert.deepEqual(await entries('{"a":1}\r'), [{ line: 1, text: '{"a":1}' }]);
  });

  it('reads a character whose bytes straddle two chunks as that character', async () => {
    const filler = 'x'.repeat(CHUNK - 10);
    const line = `{"t":"${'é'.repeat(20)}"}`;
    for (let shift = 0; shift < 4; shift += 1) {
      const read = await entries(`${filler.slice(shift)}\n${line}\n${line}\n`);
      assert.deepEqual(
        read.slice(1),
        [
          { line: 2, text: line },
          { line: 3, text: line },
        ],
        `shifted by ${shift}`,
      );
    }
  });

  it('reports a line over the limit by its size in bytes, and reads the lines after it', async () => {
    const long = `{"t":"${'é'.repeat(3 * CHUNK)}"}`;
    assert.deepEqual(await entries(`{"a":1}\n${long}\n{"b":2}\n`, { maxLineBytes: CHUNK }), [
      { line: 1, text: '{"a":1}' },
      { line: 2, overlong: true, bytes: Buffer.byteLength(long) },
      { line: 3, text: '{"b":2}' },
    ]);
    assert.deepEqual(await entries(`{"a":1}\n${'x'.repeat(11)}`, { maxLineBytes: 10 }), [
      { line: 1, text: '{"a":1}' },
      { line: 2, overlong: true, bytes: 11 },
    ]);
  });

  it('reports the first byte that is not UTF-8 by its offset in the line and in the file, wherever the line falls', async () => {
    const bad = Buffer.concat([Buffer.from('{"t":"\uFFFD caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const at = Buffer.byteLength('{"t":"\uFFFD caf');
    for (const before of ['{"a":1}\n', `${'x'.repeat(CHUNK - 5)}\n`, `${'x'.repeat(3 * CHUNK)}\n{"a":1}\n`]) {
      const read = await entries(Buffer.concat([Buffer.from(before), bad, Buffer.from('\n{"b":2}\n')]));
      const lines = before.split('\n').length;
      const offset = Buffer.byteLength(before);
      assert.deepEqual(read.slice(-2), [
        { line: lines, invalidUtf8: true, lineOffset: at, fileOffset: offset + at, byte: 0xe9 },
        { line: lines + 1, text: '{"b":2}' },
      ]);
    }
  });

  it('finds every kind of bad sequence: a stray continuation byte, a cut sequence, an overlong form, a surrogate', async () => {
    for (const bytes of [[0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]]) {
      const [entry] = await entries(Buffer.concat([Buffer.from('{"t":"ok'), Buffer.from(bytes), Buffer.from('"}\n')]));
      assert.deepEqual(entry, { line: 1, invalidUtf8: true, lineOffset: 8, fileOffset: 8, byte: bytes[0] }, bytes.join(' '));
    }
  });

  it('decodes bad bytes as U+FFFD when not asked to check (the files gymnast writes itself)', async () => {
    assert.deepEqual(await entries(Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), { checkUtf8: false }), [{ line: 1, text: '{\uFFFD}' }]);
    const path = join(dir, 'lenient.jsonl');
    writeFileSync(path, Buffer.from([0x7b, 0xff, 0x7d]));
    const read = [];
    for await (const entry of readJsonLines(path)) read.push(entry);
    assert.deepEqual(read, [{ line: 1, text: '{\uFFFD}', unterminated: true }]);
  });
});
