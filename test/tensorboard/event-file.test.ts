import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { crc32c, maskedCrc32c } from '../../src/tensorboard/crc32c.js';
import { EventFileWriter as PackageEventFileWriter } from '../../src/index.js';
import { EventFileWriter } from '../../src/tensorboard/event-file-writer.js';
import { eventFileIn, readEventFile, referenceCrc32c, referenceMask } from '../support/tfevents-reader.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const folder = () => mkdtempSync(join(tmpdir(), 'gymnast-tfevents-'));
// Past 127 bytes, its length takes two bytes of varint.
const LONG_TAG = `aggregate/${'very-long-agent-name-'.repeat(10)}/pass@1[avg-of-8]/accuracy`;
const ascii = (text: string) => Buffer.from(text, 'ascii');

// CRC-32C's published check value, and RFC 3720's test vectors (appendix B.4).
const VECTORS: [string, Uint8Array, number][] = [
  ['"123456789"', ascii('123456789'), 0xe3069283],
  ['32 bytes of zeros', new Uint8Array(32), 0x8a9136aa],
  ['32 bytes of 0xff', new Uint8Array(32).fill(0xff), 0x62a8ab43],
  ['32 ascending bytes 0..31', Uint8Array.from({ length: 32 }, (_, i) => i), 0x46dd794e],
  ['32 descending bytes 31..0', Uint8Array.from({ length: 32 }, (_, i) => 31 - i), 0x113fdb5c],
];

describe("TensorBoard event files: the record framing's checksum", () => {
  for (const [name, bytes, expected] of VECTORS) {
    it(`CRC-32C of ${name} is 0x${expected.toString(16)}, gymnast's and the reader's`, () => {
      assert.equal(crc32c(bytes), expected);
      assert.equal(referenceCrc32c(bytes), expected);
    });
  }

  it('is masked as TFRecord masks it: rotated right 15 bits, plus 0xa282ead8', () => {
    // ((0xe3069283 >>> 15) | (0xe3069283 << 17)) + 0xa282ead8, mod 2^32, worked by hand.
    assert.equal(referenceMask(0xe3069283), 0xc78ab0e5);
    assert.equal(maskedCrc32c(ascii('123456789')), 0xc78ab0e5);
    for (const [, bytes] of VECTORS) assert.equal(maskedCrc32c(bytes), referenceMask(referenceCrc32c(bytes)));
  });
});

describe('TensorBoard event files, read back by an independent reader (protobufjs, the published event.proto)', () => {
  it('names the file as TensorBoard writers do, opens with the brain.Event:2 version record, and holds each batch at its step', async () => {
    const dir = join(folder(), 'nested', 'tb');
    let clock = 1_700_000_000_250;
    const writer = await EventFileWriter.open(dir, { now: () => clock, hostname: 'box' });
    clock += 1500;
    writer.write(
      1,
      new Map([
        ['collect/mean_reward', 0.84375],
        ['collect/failures', 2],
      ]),
    );
    clock += 1500;
    writer.write(
      1_234_567_890_123,
      new Map([
        ['aggregate/arith/pass@4/accuracy', 93.75],
        ['naïve/tag ✓', 1 / 3],
        [LONG_TAG, -2.5],
      ]),
    );
    await writer.close();

    assert.equal(eventFileIn(dir), join(dir, `events.out.tfevents.1700000000.box.${process.pid}.0`));
    const { events, truncated } = readEventFile(writer.path);
    assert.equal(truncated, false);
    assert.deepEqual(
      events.map(({ wallTime, step, what, fileVersion }) => ({ wallTime, step, what, fileVersion })),
      [
        { wallTime: 1_700_000_000.25, step: 0, what: 'fileVersion', fileVersion: 'brain.Event:2' },
        { wallTime: 1_700_000_001.75, step: 1, what: 'summary', fileVersion: undefined },
        { wallTime: 1_700_000_003.25, step: 1_234_567_890_123, what: 'summary', fileVersion: undefined },
      ],
    );
    assert.deepEqual(
      events[1]!.scalars,
      new Map([
        ['collect/mean_reward', 0.84375],
        ['collect/failures', 2],
      ]),
    );
    // simple_value is a float: a third comes back as float32 rounds it.
    assert.deepEqual(
      events[2]!.scalars,
      new Map([
        ['aggregate/arith/pass@4/accuracy', 93.75],
        ['naïve/tag ✓', Math.fround(1 / 3)],
        [LONG_TAG, -2.5],
      ]),
    );
    assert.deepEqual(
      events.flatMap((event) => event.otherValues),
      [],
    );
  });

  it("is the package's own EventFileWriter, for programs that write their scalars as README's example does", async () => {
    assert.equal(PackageEventFileWriter, EventFileWriter);
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-tfevents-api-'));
    const writer = await PackageEventFileWriter.open(dir);
    writer.write(7, new Map([['loss', 0.3]]));
    await writer.close();
    const { events } = readEventFile(eventFileIn(dir));
    assert.deepEqual(
      events.flatMap((event) => [...event.scalars].map(([tag, value]) => [event.step, tag, value])),
      [[7, 'loss', Math.fround(0.3)]],
    );
  });

  it('gives two writers of one process in one second files of their own', async () => {
    const dir = folder();
    const now = () => 1_700_000_000_000;
    const [first, second] = await Promise.all([EventFileWriter.open(dir, { now }), EventFileWriter.open(dir, { now })]);
    first.write(1, new Map([['a', 1]]));
    second.write(1, new Map([['b', 2]]));
    await Promise.all([first.close(), second.close()]);
    assert.notEqual(first.path, second.path);
    assert.equal(readdirSync(dir).length, 2);
    assert.deepEqual(readEventFile(first.path).events[1]!.scalars, new Map([['a', 1]]));
    assert.deepEqual(readEventFile(second.path).events[1]!.scalars, new Map([['b', 2]]));
  });

  it('keeps each batch whole in the file once flushed, before the writer is closed (what a crashed run leaves)', async () => {
    const writer = await EventFileWriter.open(folder());
    for (let step = 1; step <= 3; step++) writer.write(step, new Map([['x', step]]));
    await writer.flush();
    const { events, truncated } = readEventFile(writer.path);
    assert.equal(truncated, false);
    assert.deepEqual(
      events.map((event) => event.scalars.get('x')),
      [undefined, 1, 2, 3],
    );
    await writer.close();
  });

  it('a last record cut short (a crash mid-write) is found: the records before it read, the file reported truncated', async () => {
    const writer = await EventFileWriter.open(folder());
    writer.write(1, new Map([['x', 1]]));
    await writer.flush();
    const before = statSync(writer.path).size;
    writer.write(2, new Map([['x', 2]]));
    await writer.close();
    const bytes = readFileSync(writer.path);
    const whole = bytes.length;
    // Cut inside the length, its CRC, the data and the data's CRC of the last record.
    for (const size of [before + 1, before + 10, before + 13, whole - 10, whole - 4, whole - 1]) {
      writeFileSync(writer.path, bytes.subarray(0, size));
      const { events, truncated } = readEventFile(writer.path);
      assert.equal(truncated, true, `cut to ${size} of ${whole} bytes`);
      assert.deepEqual(
        events.map((event) => event.step),
        [0, 1],
        `cut to ${size} of ${whole} bytes`,
      );
    }
  });

  it('a flipped byte is a CRC mismatch, not a wrong value', async () => {
    const writer = await EventFileWriter.open(folder());
    writer.write(1, new Map([['x', 1]]));
    await writer.close();
    const bytes = readFileSync(writer.path);
    bytes[bytes.length - 6]! ^= 0x01;
    writeFileSync(writer.path, bytes);
    assert.throws(() => readEventFile(writer.path), /bad data CRC/);
  });

  it('a write the OS refuses (a file size limit, as a full disk) is raised by flush and close as write-failed; what came before reads', async () => {
    const dir = folder();
    // Under `ulimit -f 1` the kernel refuses writes past 1 KiB with EFBIG (Node ignores SIGXFSZ).
    const script = `
      import { EventFileWriter } from ${JSON.stringify(join(root, 'src/tensorboard/event-file-writer.ts'))};
      const writer = await EventFileWriter.open(${JSON.stringify(dir)});
      for (let step = 1; step <= 40; step++) writer.write(step, new Map([['collect/tokens_per_second', step]]));
      const failed = await writer.flush().then(() => 'flushed', (error) => ({ kind: error.kind, code: error.code }));
      const closed = await writer.close().then(() => 'closed', (error) => error.kind);
      console.log(JSON.stringify({ failed, closed, path: writer.path }));
    `;
    const quoted = [process.execPath, '--import', 'tsx', '--input-type=module', '-e', script].map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
    const { stdout } = await promisify(execFile)('bash', ['-c', `ulimit -f 1; exec ${quoted}`], { cwd: root });
    const { failed, closed, path } = JSON.parse(stdout) as { failed: unknown; closed: unknown; path: string };
    assert.deepEqual(failed, { kind: 'write-failed', code: 'EFBIG' });
    assert.equal(closed, 'write-failed');
    assert.equal(statSync(path).size, 1024, 'written up to the limit');
    const { events, truncated } = readEventFile(path);
    assert.equal(truncated, true, 'the record the limit cut is found cut');
    assert.deepEqual(
      events.map((event) => event.step),
      Array.from({ length: events.length }, (_, i) => i),
    );
  });

  it('refuses a folder with a file in the way, naming it', async () => {
    const file = join(folder(), 'taken');
    writeFileSync(file, '');
    await assert.rejects(EventFileWriter.open(file), { kind: 'output-path', message: `${file}: a file is in the way of the folder` });
    await assert.rejects(EventFileWriter.open(join(file, 'below')), { kind: 'output-path' });
  });
});
