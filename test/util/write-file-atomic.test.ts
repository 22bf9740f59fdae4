import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { writeFileAtomic } from '../../src/util/write-file-atomic.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const helper = JSON.stringify(join(root, 'src/util/write-file-atomic.ts'));
const folder = () => mkdtempSync(join(tmpdir(), 'gymnast-atomic-'));

/** Streams `chunks` pieces of 1 KiB into `path`, printing "half" and stopping for good after half of them when `stall`. */
const writerScript = (path: string, chunks: number, stall: boolean) => `
  import { writeFileAtomic } from ${helper};
  try {
    await writeFileAtomic(${JSON.stringify(path)}, async (out) => {
      for (let i = 0; i < ${chunks}; i++) {
        await new Promise((resolve, reject) => out.write('x'.repeat(1023) + '\\n', (error) => (error ? reject(error) : resolve())));
        if (${stall} && i === ${Math.floor(chunks / 2)}) {
          console.log('half');
          setInterval(() => {}, 1000);
          await new Promise(() => {});
        }
      }
    });
    console.log('written');
  } catch (error) {
    console.log(error.code);
  }
`;

describe('writeFileAtomic', () => {
  it('replaces the file with the whole content, given at once or streamed, and leaves nothing else in the folder', async () => {
    const dir = folder();
    const path = join(dir, 'report.json');
    writeFileSync(path, '{"old": true}\n');
    await writeFileAtomic(path, '{"new": 1}\n');
    assert.equal(readFileSync(path, 'utf8'), '{"new": 1}\n');
    await writeFileAtomic(path, async (out) => {
      out.write('[');
      out.write('2]\n');
    });
    assert.equal(readFileSync(path, 'utf8'), '[2]\n');
    assert.deepEqual(readdirSync(dir), ['report.json']);
  });

  it('keeps the previous file whole and removes its temporary file when the disk refuses the write (EFBIG under ulimit -f)', async () => {
    const dir = folder();
    const path = join(dir, 'report.json');
    writeFileSync(path, 'previous\n');
    // 8 KiB allowed, 32 KiB written: the kernel refuses the write part way, like a full disk.
    const child = await run('bash', ['-c', `ulimit -f 8; exec '${process.execPath}' --import tsx --input-type=module -e "$0"`, writerScript(path, 32, false)], {
      cwd: root,
    });
    assert.equal(child.stdout.trim(), 'EFBIG');
    assert.equal(readFileSync(path, 'utf8'), 'previous\n');
    assert.deepEqual(readdirSync(dir), ['report.json'], 'no temporary file is left');
  });

  it('keeps the previous file whole when its writer is killed (kill -9) half way', async () => {
    const dir = folder();
    const path = join(dir, 'report.json');
    writeFileSync(path, 'previous\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', writerScript(path, 64, true)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [said] = (await once(child.stdout, 'data')) as [Buffer];
    assert.equal(said.toString().trim(), 'half');
    child.kill('SIGKILL');
    await once(child, 'exit');
    assert.equal(readFileSync(path, 'utf8'), 'previous\n');
  });

  it('writes through a symbolic link: the link stays and its target gets the content', async () => {
    const dir = folder();
    const target = join(dir, 'target.json');
    const link = join(dir, 'link.json');
    writeFileSync(target, 'previous\n');
    symlinkSync(target, link);
    await writeFileAtomic(link, 'new\n');
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readFileSync(target, 'utf8'), 'new\n');
  });
});
