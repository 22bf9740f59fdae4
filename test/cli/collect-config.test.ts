import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/gymnast.js');

describe('gymnast collect --config', () => {
  it('reads options from YAML by flag name; flags on the command line win', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-config-'));
    const config = join(dir, 'run.yaml');
    writeFileSync(
      config,
      `input: ${join(root, 'examples/arithmetic.jsonl')}\noutput: ${join(dir, 'out.jsonl')}\nnum-repeats: 2\nlimit: 3\nset:\n  temperature: 0.5\n`,
    );
    await run(process.execPath, [bin, 'collect', '--config', config]);
    const planned = readFileSync(join(dir, 'out_materialized_inputs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { responses_create_params: { temperature: number } });
    assert.equal(planned.length, 6);
    assert.ok(planned.every((row) => row.responses_create_params.temperature === 0.5));

    await run(process.execPath, [bin, 'collect', '--config', config, '--num-repeats', '1', '--overwrite']);
    assert.equal(readFileSync(join(dir, 'out_materialized_inputs.jsonl'), 'utf8').trim().split('\n').length, 3);
  });

  it('takes overwrite from the file, and refuses it next to --resume', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-config-'));
    const config = join(dir, 'run.yaml');
    writeFileSync(config, `input: ${join(root, 'examples/arithmetic.jsonl')}\noutput: ${join(dir, 'out.jsonl')}\nlimit: 2\n`);
    await run(process.execPath, [bin, 'collect', '--config', config]);
    await assert.rejects(run(process.execPath, [bin, 'collect', '--config', config]), /already holds an earlier run's rows/);
    writeFileSync(config, `input: ${join(root, 'examples/arithmetic.jsonl')}\noutput: ${join(dir, 'out.jsonl')}\nlimit: 1\noverwrite: true\n`);
    await run(process.execPath, [bin, 'collect', '--config', config]);
    assert.equal(readFileSync(join(dir, 'out_materialized_inputs.jsonl'), 'utf8').trim().split('\n').length, 1);
    await assert.rejects(run(process.execPath, [bin, 'collect', '--config', config, '--resume']), /--resume and --overwrite contradict each other/);
  });

  it('refuses unknown options in the file and a run with no input, naming them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-config-'));
    const config = join(dir, 'bad.yaml');
    writeFileSync(config, 'output: out.jsonl\nnum_reps: 2\n');
    await assert.rejects(run(process.execPath, [bin, 'collect', '--config', config]), /bad\.yaml: num_reps: unknown option/);
    writeFileSync(config, 'output: out.jsonl\n');
    await assert.rejects(run(process.execPath, [bin, 'collect', '--config', config]), /collect needs --input/);
  });
});
