import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { collect, type CollectOptions } from '../../src/collect/collect-run.js';
import { SamplingParams } from '../../src/core/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';

const run = promisify(execFile);
const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const tokenizer = new CharTokenizer();
const row = JSON.stringify({
  responses_create_params: { input: [{ role: 'user', content: 'what is 1+2?' }] },
  agent_ref: { name: 'arithmetic' },
  problem: '1+2',
  answer: 3,
});
const isRoot = process.getuid?.() === 0;

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-paths-'));
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, `${row}\n`);
  const options = (output: string): CollectOptions => ({
    input,
    output,
    concurrency: 2,
    policy: new ScriptedPolicy({ tokenizer, script: [{ text: '3' }] }),
    renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
    maxSeqLen: 512,
    maxTurns: 2,
    sampling: SamplingParams.parse({ max_tokens: 8 }),
  });
  return { dir, input, options };
}

describe('output paths are checked before anything is written', () => {
  it('refuses an --output that is a directory, naming it, and writes no file', async () => {
    const { dir, options } = setup();
    const output = join(dir, 'out.jsonl');
    mkdirSync(output);
    await assert.rejects(collect(options(output)), {
      kind: 'output-path',
      message: `--output ${output} is a directory: name a file, e.g. ${join(output, 'rollouts.jsonl')}`,
    });
    assert.deepEqual(readdirSync(dir).sort(), ['in.jsonl', 'out.jsonl']);
    assert.deepEqual(readdirSync(output), []);
  });

  it('refuses a directory where the run would write a file beside the output (failures, metrics, plan, lock)', async () => {
    const { dir, options } = setup();
    for (const beside of ['out_failures.jsonl', 'out_aggregate_metrics.json', 'out_materialized_inputs.jsonl', 'out_run.json', 'out_run.lock']) {
      mkdirSync(join(dir, beside));
      await assert.rejects(collect(options(join(dir, 'out.jsonl'))), {
        kind: 'output-path',
        message: new RegExp(`^${join(dir, beside)} is a directory, where this run would write its .*: move it away or choose another --output$`),
      });
      assert.deepEqual(readdirSync(dir).sort(), ['in.jsonl', beside]);
      rmSync(join(dir, beside), { recursive: true });
    }
  });

  it('refuses an output under a regular file (ENOTDIR) without a stack trace, from the command line too', async () => {
    const { dir, input, options } = setup();
    const output = join(input, 'out', 'rollouts.jsonl');
    const message = `cannot write in ${join(input, 'out')}: ${input} is a file, not a folder (ENOTDIR)`;
    await assert.rejects(collect(options(output)), { kind: 'output-path', message });
    const cli = await run(process.execPath, [bin, 'collect', '--input', input, '--output', output]).catch((error: { code: number; stderr: string }) => error);
    assert.equal((cli as { code: number }).code, 1);
    assert.equal(cli.stderr, `gymnast: output-path: ${message}\n`);
    assert.deepEqual(readdirSync(dir), ['in.jsonl']);
  });

  it('refuses a folder the OS will not write in, naming the folder and the code (/sys refuses even root)', async () => {
    const { options } = setup();
    for (const output of ['/sys/out.jsonl', `/sys/gymnast-${process.pid}/out.jsonl`]) {
      await assert.rejects(collect(options(output)), {
        kind: 'output-path',
        message: /^cannot write in \/sys: (permission denied \(EACCES\)|operation not permitted \(EPERM\))$/,
      });
    }
    assert.equal(existsSync(`/sys/gymnast-${process.pid}`), false);
  });

  it('refuses a folder under /proc instead of hanging (Node’s recursive mkdir loops there)', async () => {
    const { options } = setup();
    await assert.rejects(collect(options(`/proc/gymnast-${process.pid}/runs/out.jsonl`)), {
      kind: 'output-path',
      message: /^cannot write in \/proc: .*\((ENOENT|EACCES)\)$/,
    });
  });

  it('refuses a folder without write permission', { skip: isRoot && 'root writes in any folder: the /sys case stands in for it' }, async () => {
    const { dir, options } = setup();
    const locked = join(dir, 'locked');
    mkdirSync(locked, { mode: 0o555 });
    await assert.rejects(collect(options(join(locked, 'out.jsonl'))), {
      kind: 'output-path',
      message: `cannot write in ${locked}: permission denied (EACCES)`,
    });
    chmodSync(locked, 0o755);
    assert.deepEqual(readdirSync(locked), []);
  });

  it('creates missing folders above the output, as NeMo Gym does', async () => {
    const { dir, options } = setup();
    const summary = await collect(options(join(dir, 'runs', 'a', 'b', 'out.jsonl')));
    assert.equal(summary.rollouts, 1);
  });
});
