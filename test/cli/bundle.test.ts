import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { InferenceServer } from '../../src/testing/index.js';
import { startServers } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** Rows without what differs between two runs of the same code: wall times. */
function comparable(jsonl: string): unknown[] {
  return jsonl
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line, (key, value: unknown) => (key === 'duration_ms' || key === 'timing' ? undefined : value)));
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
    writeFileSync(input, `${JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: 'what is 1+1?' }] }, agent_ref: { name: 'arithmetic' }, problem: '1+1', answer: 2 })}\n`);
    const args = (output: string) => ['collect', '--policy', 'vllm-completions', '--base-url', server.url, '--model', 'gymnast-test-model', '--tokenizer', qwen3Directory, '-i', input, '-o', output, '--seed', '3'];
    const fromBundle = join(dir, 'bundle-out', 'rows.jsonl');
    const fromSources = join(dir, 'sources-out', 'rows.jsonl');
    // The sources through tsx: what dist/cli/main.js is compiled from, whether or not dist/ is current.
    const sources = `import { main } from ${JSON.stringify(pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href)}; process.exitCode = await main(['node', 'gymnast', ...JSON.parse(process.env.GYMNAST_ARGS)]);`;
    await Promise.all([
      run(process.execPath, [bundle, ...args(fromBundle)]),
      run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', sources], { cwd: root, env: { ...process.env, GYMNAST_ARGS: JSON.stringify(args(fromSources)) } }),
    ]);
    const rows = comparable(readFileSync(fromBundle, 'utf8'));
    assert.equal(rows.length, 1);
    assert.deepEqual(rows, comparable(readFileSync(fromSources, 'utf8')));
    assert.deepEqual(readFileSync(fromBundle.replace('.jsonl', '_failures.jsonl'), 'utf8'), '');
  });
});
