import assert from 'node:assert/strict';
import { linkSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gymnast } from '../support/run-cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const arithmetic = join(root, 'examples/arithmetic.jsonl');
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every file of a folder with its bytes: a refused run must leave this exactly as it was. */
const snapshot = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), 'latin1')]),
  );

describe('gymnast collect refuses to read a file it would write', () => {
  // A finished run (2 rows), so that every file beside its output exists to be named.
  let dir: string;
  let output: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gymnast-input-output-'));
    output = join(dir, 'out.jsonl');
    writeFileSync(join(dir, 'data.jsonl'), `${readFileSync(arithmetic, 'utf8').split('\n').slice(0, 2).join('\n')}\n`);
    const first = await gymnast('collect', '-i', join(dir, 'data.jsonl'), '-o', output);
    assert.equal(first.code, 0, first.stderr);
    linkSync(join(dir, 'out.jsonl'), join(dir, 'hard-link.jsonl'));
    symlinkSync(join(dir, 'out_health.jsonl'), join(dir, 'symlink.jsonl'));
    writeFileSync(join(dir, 'prompt.yaml'), 'user: "{problem}"\n');
  });

  /** Runs collect with `args` and checks it is refused with `message`, exit 1 and no file changed (no lock left either). */
  async function refused(args: string[], message: string): Promise<void> {
    const was = snapshot(dir);
    const result = await gymnast('collect', ...args);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(
        `^gymnast: output-path: ${escapeRegExp(message)}: it would be overwritten while it is read\\. Choose another --output, or copy \\S+ elsewhere first\\.\\n$`,
      ),
    );
    assert.deepEqual(snapshot(dir), was, 'every file byte for byte, and no lock left');
  }

  it('-i data.jsonl -o data.jsonl: the dataset would be replaced by its first rollout', async () => {
    const data = join(dir, 'data.jsonl');
    await refused(['-i', data, '-o', data], `--input ${data} is where this run (--output ${data}) writes its rollouts`);
  });

  it("the run's own materialized inputs or failures as --input: emptied before being read, even with --overwrite or --resume", async () => {
    const materialized = join(dir, 'out_materialized_inputs.jsonl');
    const failures = join(dir, 'out_failures.jsonl');
    await refused(
      ['-i', materialized, '-o', output, '--overwrite'],
      `--input ${materialized} is where this run (--output ${output}) writes its materialized inputs`,
    );
    await refused(['-i', failures, '-o', output, '--resume'], `--input ${failures} is where this run (--output ${output}) writes its failures`);
  });

  it('a hard link, a symbolic link or another spelling of a file the run writes', async () => {
    await refused(
      ['-i', join(dir, 'hard-link.jsonl'), '-o', output, '--overwrite'],
      `--input ${join(dir, 'hard-link.jsonl')} is the same file as ${output}, where this run (--output ${output}) writes its rollouts`,
    );
    await refused(
      ['-i', join(dir, 'symlink.jsonl'), '-o', output, '--overwrite'],
      `--input ${join(dir, 'symlink.jsonl')} is the same file as ${join(dir, 'out_health.jsonl')}, where this run (--output ${output}) writes its health verdicts`,
    );
    const spelled = `${dir}/../${dir.split('/').pop()!}/./out.jsonl`;
    await refused(['-i', spelled, '-o', output, '--overwrite'], `--input ${spelled} is where this run (--output ${output}) writes its rollouts`);
  });

  it('--prompt-config and --config files too', async () => {
    const prompt = join(dir, 'prompt.yaml');
    await refused(
      ['-i', join(dir, 'data.jsonl'), '-o', prompt, '--prompt-config', prompt],
      `--prompt-config ${prompt} is where this run (--output ${prompt}) writes its rollouts`,
    );
    const config = join(dir, 'run_aggregate_metrics.json');
    writeFileSync(config, JSON.stringify({ input: join(dir, 'data.jsonl'), output: join(dir, 'run.jsonl') }));
    await refused(['--config', config], `--config ${config} is where this run (--output ${join(dir, 'run.jsonl')}) writes its aggregate metrics`);
  });
});
