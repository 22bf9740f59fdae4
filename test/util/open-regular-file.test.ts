import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openRegularFile } from '../../src/util/open-regular-file.js';

describe('openRegularFile', () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'gymnast-open-regular-'));
    await writeFile(join(directory, 'file'), 'contents');
    await symlink(join(directory, 'file'), join(directory, 'link'));
    await mkdir(join(directory, 'folder'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('opens a regular file, with the stats of what it opened', async () => {
    const opened = await openRegularFile(join(directory, 'file'));
    assert.ok(!('refused' in opened));
    try {
      assert.equal(await opened.handle.readFile('utf8'), 'contents');
      assert.equal(opened.stats.size, 8);
    } finally {
      await opened.handle.close();
    }
  });

  it('refuses a symbolic link, even to a regular file, and a folder, saying which', async () => {
    assert.deepEqual(await openRegularFile(join(directory, 'link')), { refused: 'it is a symbolic link' });
    assert.deepEqual(await openRegularFile(join(directory, 'folder')), { refused: 'it is a folder, not a regular file' });
  });

  it('refuses a FIFO at once: nothing waits for a writer', { skip: process.platform === 'win32' ? 'no FIFOs' : false }, async () => {
    const fifo = join(directory, 'fifo');
    execFileSync('mkfifo', [fifo]);
    assert.deepEqual(await openRegularFile(fifo), { refused: 'it is a FIFO, not a regular file' });
  });

  it('fails as open does for a missing file', async () => {
    await assert.rejects(openRegularFile(join(directory, 'missing')), { code: 'ENOENT' });
  });
});
