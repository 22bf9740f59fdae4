import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * bin/gymnast.js over a package whose three ways to run each say which they are: the bundle
 * (dist/cli-bundle), the compiled CLI (dist/cli) and the sources (src/, through tsx).
 */
describe('bin/gymnast.js picks what it runs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-bin-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const entry = (name: string) => `export async function main() { process.stdout.write('${name}'); return 0; }\n`;
  const files: Record<string, string> = {
    'bin/gymnast.js': readFileSync(join(root, 'bin', 'gymnast.js'), 'utf8'),
    'dist/cli-bundle/main.js': entry('bundle'),
    'dist/cli/main.js': entry('compiled'),
    'src/cli/main.ts': entry('sources'),
    'src/tokens/jinja/compile-loop.ts': 'export {};\n',
    'package.json': '{"type": "module"}\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  const at = (path: string, seconds: number) => utimesSync(join(dir, path), seconds, seconds);
  const ran = async () => (await run(process.execPath, [join(dir, 'bin', 'gymnast.js')])).stdout;
  /** Every source and folder under src/ at `seconds`, the builds at theirs. */
  const times = (sources: number, bundle: number, compiled: number) => {
    for (const path of ['src/tokens/jinja/compile-loop.ts', 'src/tokens/jinja', 'src/tokens', 'src/cli/main.ts', 'src/cli', 'src']) at(path, sources);
    at('dist/cli-bundle/main.js', bundle);
    at('dist/cli/main.js', compiled);
  };

  it('runs the bundle when it is at least as new as every source', async () => {
    times(1_000, 2_000, 2_000);
    assert.equal(await ran(), 'bundle');
  });

  it('runs the compiled CLI when only it is current', async () => {
    times(1_500, 1_000, 2_000);
    assert.equal(await ran(), 'compiled');
  });

  it('runs the sources when a file deep in src/ changed after both builds', async () => {
    times(1_000, 2_000, 2_000);
    at('src/tokens/jinja/compile-loop.ts', 3_000);
    assert.equal(await ran(), 'sources');
  });

  it('runs the sources when a file was added to or removed from a folder after the builds (its mtime moves)', async () => {
    times(1_000, 2_000, 2_000);
    at('src/tokens/jinja', 3_000);
    assert.equal(await ran(), 'sources');
  });
});
