import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const tsc = join(root, 'node_modules', '.bin', 'tsc');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; files: string[] };

/** The README's library examples (each ```js block of "## Use as a library"), run as written so that the two cannot drift apart. */
function readmeExamples(): string[] {
  const section = readFileSync(join(root, 'README.md'), 'utf8').split('\n## Use as a library\n')[1]?.split('\n## ')[0] ?? '';
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!);
  assert.equal(blocks.length, 2, 'README.md has two ```js blocks under "## Use as a library": a collection, and episodes in groups');
  return blocks;
}

const scriptedEpisode = `
import { CharTokenizer, EpisodeTask, PlainChatTemplate, runEpisode, SamplingParams, TemplateRenderer } from 'gymnast';
import { ScriptedEnvironment, ScriptedPolicy } from 'gymnast/testing';

const tokenizer = new CharTokenizer();
const record = await runEpisode(EpisodeTask.parse({ id: 'q', index: 0, messages: [{ role: 'user', content: '1+1?' }] }), 0, {
  policy: new ScriptedPolicy({ tokenizer, script: [{ text: '2' }] }),
  environment: new ScriptedEnvironment({ step: () => ({ reward: 1, terminated: true }) }),
  renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
  maxTurns: 2,
  maxSeqLen: 256,
  sampling: SamplingParams.parse({ max_tokens: 8 }),
});
console.log(JSON.stringify({ reward: record.reward, termination: record.termination.kind }));
`;

const typedUse = `
import { collect, SamplingParams, type CollectSummary, type RolloutRecord } from 'gymnast';
import { ScriptedPolicy } from 'gymnast/testing';

export const sampling: SamplingParams = SamplingParams.parse({ max_tokens: 8 });
export type Rollouts = CollectSummary['rollouts'];
export const reward = (record: RolloutRecord): number => record.reward;
export const policyName = (policy: ScriptedPolicy): string => policy.name;
// @ts-expect-error collect's options are typed: an input path is a string
export const wrong = collect({ input: 1 });
`;

const testingUse = `
import { InferenceServer, ScriptedPolicy, type InferenceServerOptions } from 'gymnast/testing';

export const server = (options: InferenceServerOptions): InferenceServer => new InferenceServer(options);
export type Policy = ScriptedPolicy;
`;

/** tsc reports on stdout, which a failed execFile leaves out of its message. */
async function compile(args: string[]): Promise<void> {
  await run(tsc, args).catch((error: Error & { stdout: string }) => assert.fail(`tsc ${args.join(' ')}\n${error.stdout}`));
}

/** npm ci filled the cache with every dependency; fall back to the registry only when it lacks one. */
async function npmOffline(project: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const flags = ['--no-audit', '--no-fund', ...args];
  return run('npm', ['--offline', ...flags], { cwd: project }).catch(() => run('npm', ['--prefer-offline', ...flags], { cwd: project }));
}

describe('the npm package', { timeout: 120_000 }, () => {
  // A space in the path: an installed package lives wherever its consumer does.
  const dir = mkdtempSync(join(tmpdir(), 'gymnast pack-'));
  const consumer = join(dir, 'consumer');
  // A staged copy, built on its own: rebuilding the checkout's dist/ would race with the CLI tests that run it.
  const stage = join(dir, 'stage');
  let packed: string[] = [];

  before(async () => {
    for (const entry of ['package.json', 'README.md', ...manifest.files.filter((entry) => entry !== 'dist')])
      cpSync(join(root, entry), join(stage, entry), { recursive: true });
    await compile(['-p', join(root, 'tsconfig.build.json'), '--outDir', join(stage, 'dist')]);
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: stage });
    const [pack] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    packed = pack!.files.map((file) => file.path);
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await npmOffline(consumer, ['install', join(dir, pack!.filename)]);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the compiled code, its types, the CLI and the embedded model, and no sources or tests', () => {
    for (const path of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/testing/index.js',
      'dist/testing/index.d.ts',
      'dist/cli/main.js',
      'bin/gymnast.js',
      'assets/embedded/model.bin',
      'README.md',
    ]) {
      assert.ok(packed.includes(path), `${path} is in the tarball`);
    }
    assert.deepEqual(
      packed.filter((path) => /^(src|test)\//.test(path)),
      [],
    );
    assert.ok(!existsSync(join(consumer, 'node_modules', 'tsx')), 'tsx is a dev dependency, not installed for consumers');
  });

  it("runs the README's library examples from plain Node, as .mjs files in a CommonJS folder (what npm init -y makes)", async () => {
    // Inside the consumer, so that 'gymnast' resolves to the installed package; its own package.json as npm init -y writes it.
    const commonjs = join(consumer, 'commonjs');
    mkdirSync(commonjs);
    writeFileSync(join(commonjs, 'package.json'), JSON.stringify({ name: 'commonjs', version: '1.0.0', main: 'index.js', type: 'commonjs' }));
    writeFileSync(
      join(commonjs, 'arithmetic.jsonl'),
      readFileSync(join(root, 'examples', 'arithmetic.jsonl'), 'utf8')
        .split('\n')
        .slice(0, 2)
        .join('\n'),
    );
    const [collection, groups] = readmeExamples();
    writeFileSync(join(commonjs, 'collect.mjs'), collection!);
    const { stdout } = await run(process.execPath, ['collect.mjs'], { cwd: commonjs });
    assert.match(stdout, /^4 rollouts, 0 failures/);
    assert.equal(
      readFileSync(join(commonjs, 'runs', 'library', 'rollouts.jsonl'), 'utf8')
        .trim()
        .split('\n').length,
      4,
    );

    writeFileSync(join(commonjs, 'groups.mjs'), groups!);
    const grouped = await run(process.execPath, ['groups.mjs'], { cwd: commonjs });
    assert.match(grouped.stdout, /^q1 \{\n {2}num_samples: 4,/);

    // What the README says a .js file there does instead.
    writeFileSync(join(commonjs, 'collect.js'), collection!);
    const failed = await run(process.execPath, ['collect.js'], { cwd: commonjs }).then(
      () => assert.fail('a .js file importing gymnast ran in a CommonJS folder'),
      (error: Error & { stderr: string }) => error.stderr,
    );
    assert.match(failed, /SyntaxError: Cannot use import statement outside a module/);
  });

  it('runs an episode with the test doubles from gymnast/testing', async () => {
    writeFileSync(join(consumer, 'episode.mjs'), scriptedEpisode);
    const { stdout } = await run(process.execPath, ['episode.mjs'], { cwd: consumer });
    assert.deepEqual(JSON.parse(stdout), { reward: 1, termination: 'env-done' });
  });

  it('runs the installed CLI from dist/', async () => {
    const { stdout } = await run(join(consumer, 'node_modules', '.bin', 'gymnast'), ['--version'], { cwd: consumer });
    assert.equal(stdout.trim(), manifest.version);
  });

  it('installs from a checkout for production (npm ci --omit=dev): no build tools, the dist/ it has kept, the CLI runs it', async () => {
    // As a container stage would: the checkout with a dist/ built beforehand, installed without dev dependencies.
    const checkout = join(dir, 'production');
    cpSync(stage, checkout, { recursive: true });
    for (const entry of ['package-lock.json', 'scripts/prepare.mjs']) cpSync(join(root, entry), join(checkout, entry));
    const { stderr } = await npmOffline(checkout, ['ci', '--omit=dev']);
    assert.match(stderr, /dist\/ left as it is: the build needs typescript and esbuild/);
    assert.ok(!existsSync(join(checkout, 'node_modules', 'typescript')), 'typescript is a dev dependency');
    assert.ok(existsSync(join(checkout, 'node_modules', 'undici')), 'the runtime dependencies are installed');
    const { stdout } = await run(process.execPath, [join(checkout, 'bin', 'gymnast.js'), '--version'], { cwd: checkout });
    assert.equal(stdout.trim(), manifest.version);
  });

  it('gives a TypeScript project real types, for both entry points, from a tsconfig that lists no "types"', async () => {
    // No "types": TypeScript 6 and later then load no @types package the declarations do not reference.
    const compilerOptions = { module: 'NodeNext', strict: true, noEmit: true };
    writeFileSync(join(consumer, 'typed-use.ts'), typedUse);
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['typed-use.ts'] }));
    // Each entry point on its own too: a project may import only the test doubles.
    writeFileSync(join(consumer, 'testing-use.ts'), testingUse);
    writeFileSync(join(consumer, 'tsconfig.testing.json'), JSON.stringify({ compilerOptions, files: ['testing-use.ts'] }));
    await Promise.all([compile(['-p', join(consumer, 'tsconfig.json')]), compile(['-p', join(consumer, 'tsconfig.testing.json')])]);
  });
});
