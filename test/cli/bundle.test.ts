import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { readFullRow } from '../../src/core/index.js';
import type { InferenceServer } from '../../src/testing/index.js';
import { startServers } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** Runs a command to its end, failing or not: its exit code and what it printed. */
async function outcome(command: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    return { code: 0, ...(await run(command, args)) };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** Rows without what differs between two runs of the same code: wall times. */
function comparable(jsonl: string): unknown[] {
  return jsonl
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line, (key, value: unknown) => (key === 'duration_ms' || key === 'started_at' || key === 'timing' ? undefined : value)));
}

/**
 * The CLI bundle bin/gymnast.js runs after `npm run build` (scripts/bundle-cli.mjs), built here from
 * the current sources into a temporary folder, so the spec never sees a stale dist/ in a checkout
 * that others are editing. The bundle finds the package's files (package.json, assets/) from any folder.
 */
describe('the CLI bundle (dist/cli-bundle)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-bundle-'));
  const bundle = join(dir, 'bundle', 'main.js');
  const input = join(dir, 'one.jsonl');
  let server: InferenceServer;

  before(async () => {
    await run(process.execPath, [join(root, 'scripts', 'bundle-cli.mjs'), join(dir, 'bundle')]);
    server = (await startServers(1, { respond: () => 'ok' }))[0]!;
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs as a program: --version prints the package version, --help lists the commands', async () => {
    assert.equal((await run(process.execPath, [bundle, '--version'])).stdout.trim(), manifest.version);
    const { stdout } = await run(process.execPath, [bundle, '--help']);
    for (const command of ['collect', 'aggregate', 'serve', 'view', 'render']) assert.match(stdout, new RegExp(`^\\s+${command}\\b`, 'm'));
  });

  it('collects the same rows as the sources do (1 row against the test inference server)', async () => {
    writeFileSync(
      input,
      `${JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: 'what is 1+1?' }] }, agent_ref: { name: 'arithmetic' }, problem: '1+1', answer: 2 })}\n`,
    );
    const args = (output: string) => [
      'collect',
      '--policy',
      'vllm-completions',
      '--base-url',
      server.url,
      '--model',
      'gymnast-test-model',
      '--tokenizer',
      qwen3Directory,
      '-i',
      input,
      '-o',
      output,
      '--seed',
      '3',
    ];
    const fromBundle = join(dir, 'bundle-out', 'rows.jsonl');
    const fromSources = join(dir, 'sources-out', 'rows.jsonl');
    // The sources through tsx: what dist/cli/main.js is compiled from, whether or not dist/ is current.
    const sources = `import { main } from ${JSON.stringify(pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href)}; process.exitCode = await main(['node', 'gymnast', ...JSON.parse(process.env.GYMNAST_ARGS)]);`;
    await Promise.all([
      run(process.execPath, [bundle, ...args(fromBundle)]),
      run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', sources], {
        cwd: root,
        env: { ...process.env, GYMNAST_ARGS: JSON.stringify(args(fromSources)) },
      }),
    ]);
    const rows = comparable(readFileSync(fromBundle, 'utf8'));
    assert.equal(rows.length, 1);
    assert.deepEqual(rows, comparable(readFileSync(fromSources, 'utf8')));
    assert.deepEqual(readFileSync(fromBundle.replace('.jsonl', '_failures.jsonl'), 'utf8'), '');
  });

  // The embedded model (assets/embedded/) and the viewer's app (assets/viewer/) are found through paths
  // the bundle rewrites: run from another folder, as an installed package is.
  const embeddedRun = join(dir, 'embedded-out', 'rows.jsonl');

  it("collects from the embedded model (the README's quick start, 2 rows)", async () => {
    const args = [
      'collect',
      '--policy',
      'embedded',
      '--input',
      join(root, 'examples', 'arithmetic.jsonl'),
      '--limit',
      '2',
      '--num-repeats',
      '1',
      '--output',
      embeddedRun,
      '--seed',
      '3',
    ];
    const { stdout } = await run(process.execPath, [bundle, ...args], { cwd: dir });
    assert.match(stdout, /^2 rollouts in /m);
    const rows = readFileSync(embeddedRun, 'utf8')
      .trim()
      .split('\n')
      .map((line, i) => readFullRow(JSON.parse(line), `${embeddedRun}:${i + 1}`).row);
    assert.equal(rows.length, 2);
    for (const row of rows)
      assert.ok(
        row.messages?.some((message) => message.role === 'assistant' && message.token_ids!.length > 0),
        'the embedded model sampled tokens',
      );
  });

  it("serves the viewer's app from the package's assets/viewer/ (gymnast view)", async () => {
    const viewer = spawn(process.execPath, [bundle, 'view', embeddedRun, '--no-open', '--port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let printed = '';
        viewer.stdout.on('data', (chunk: Buffer) => {
          printed += chunk.toString();
          const found = / at (http:\/\/\S+) /.exec(printed);
          if (found) resolve(found[1]!);
        });
        viewer.once('exit', (code) => reject(new Error(`gymnast view exited (${code}) before printing its URL: ${printed}`)));
      });
      for (const [path, file] of [
        ['/', 'index.html'],
        ['/static/app.js', 'app.js'],
      ] as const) {
        const response = await fetch(new URL(path, url));
        assert.equal(response.status, 200, path);
        assert.equal(await response.text(), readFileSync(join(root, 'assets', 'viewer', file), 'utf8'), path);
      }
    } finally {
      viewer.kill();
    }
  });

  it("writes a static copy of a run from the package's assets/viewer/ (gymnast view --bundle)", async () => {
    const out = join(dir, 'static copy');
    const { stdout } = await run(process.execPath, [bundle, 'view', embeddedRun, '--bundle', out], { cwd: dir });
    assert.match(stdout, /wrote a static copy of a run, \d+ rollouts to /);
    assert.equal(readFileSync(join(out, 'style.css'), 'utf8'), readFileSync(join(root, 'assets', 'viewer', 'style.css'), 'utf8'));
    assert.match(readFileSync(join(out, 'viewer.js'), 'utf8'), /"pages\/group\.js": \(__import, __exports\) =>/);
    assert.match(readFileSync(join(out, 'data', 'runs.js'), 'utf8'), /^gymnastBundle\.put\("runs", /);
  });

  it("carries zod's English messages alone, not its other locales (parsed at every start for nothing)", () => {
    const code = readdirSync(join(dir, 'bundle'))
      .map((name) => readFileSync(join(dir, 'bundle', name), 'utf8'))
      .join('\n');
    assert.match(code, /node_modules\/zod\/v4\/locales\/en\.js/);
    assert.doesNotMatch(code, /node_modules\/zod\/v4\/locales\/(?!en\.js|en-only\.js)[\w-]+\.js/);
  });

  it('keeps the licence comments of bundled dependencies', () => {
    const chunks = readdirSync(join(dir, 'bundle')).map((name) => readFileSync(join(dir, 'bundle', name), 'utf8'));
    assert.ok(
      chunks.some((code) => /formdata-polyfill\. MIT License\./.test(code)),
      "undici's bundled formdata-polyfill keeps its licence",
    );
  });
});

/**
 * A copy of the build scripts over a two-file package: a source (src/) or a dependency that resolves
 * a path through import.meta, which the bundle cannot honour, fails the build and leaves no bundle.
 */
describe('bundling a CLI that resolves a path the bundle cannot honour', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-bundle-unresolvable-'));
  const outdir = join(dir, 'dist', 'cli-bundle');
  after(() => rmSync(dir, { recursive: true, force: true }));

  before(() => {
    mkdirSync(join(dir, 'scripts'));
    mkdirSync(join(dir, 'src', 'cli'), { recursive: true });
    for (const name of ['bundle-cli.mjs', 'cli-bundle-entry.mjs']) writeFileSync(join(dir, 'scripts', name), readFileSync(join(root, 'scripts', name)));
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'package.json'), '{}');
  });

  const build = async (main: string, dependency = 'export const dependency = 1;') => {
    writeFileSync(join(dir, 'src', 'cli', 'main.ts'), main);
    writeFileSync(join(dir, 'dependency.mjs'), dependency);
    return outcome(process.execPath, [join(dir, 'scripts', 'bundle-cli.mjs')]);
  };
  const main = (line: string) => `import { dependency } from '../../dependency.mjs';\n${line}\nexport async function main() { return dependency ? 0 : 1; }\n`;

  it('builds when each path is a relative URL naming a file', async () => {
    const built = await build(main("export const manifest = new URL('../../package.json', import.meta.url);"));
    assert.equal(built.code, 0, built.stderr);
    assert.ok(existsSync(join(outdir, 'main.js')));
  });

  it('fails at the source line for any other import.meta use in src/, or a relative URL naming no file', async () => {
    const failed = await build(main("export const here = import.meta.dirname;\nexport const gone = new URL('../../gone.json', import.meta.url);"));
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /import\.meta\.dirname is left as is in the bundle[\s\S]*src\/cli\/main\.ts:2:20/);
    assert.match(failed.stderr, /\.\.\/\.\.\/gone\.json names no file[\s\S]*src\/cli\/main\.ts:3:/);
    assert.doesNotMatch(failed.stderr, /\n\s+at /, 'no stack trace over the errors');
    assert.equal(existsSync(join(outdir, 'main.js')), false);
  });

  it("fails for a dependency's import.meta.url left in the bundle, and removes the bundle", async () => {
    const failed = await build(main(''), 'export const dependency = import.meta.url;');
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /^ {2}main\.js:\d+: import\.meta\.url left in the bundle: var dependency = import\.meta\.url;$/m);
    assert.equal(existsSync(outdir), false, 'no bundle for bin/gymnast.js to prefer');
  });
});
