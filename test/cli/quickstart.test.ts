import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { readFullRow } from '../../src/core/index.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The quick start's arguments after `npx gymnast`, writing to `output` instead of runs/quickstart/. */
function quickstartArgs(output: string): string[] {
  const command = readme
    .split('\n')
    .find((text) => text.startsWith('npm ci && '))!
    .slice('npm ci && '.length);
  return command
    .replace(/^npx gymnast /, '')
    .replace(/--output \S+/, `--output ${output}`)
    .split(' ');
}

/** Runs gymnast to its end; a non-zero exit is a result, not a throw. */
async function gymnast(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    return { code: 0, ...(await run(process.execPath, [join(root, 'bin/gymnast.js'), ...args], { cwd: root })) };
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string };
  }
}

/** Every file of a folder with its bytes. */
const snapshot = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), 'latin1')]),
  );

describe("the README's quick start", () => {
  it('is one line starting with `npm ci && ` that runs gymnast collect on the embedded model', async () => {
    const line = readme.split('\n').find((text) => text.startsWith('npm ci && '));
    assert.ok(line, 'the README has a line starting with `npm ci && `');
    const command = line.slice('npm ci && '.length);
    assert.match(command, /^npx gymnast collect /);

    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-quickstart-')), 'rollouts.jsonl');
    const args = command
      .replace(/^npx gymnast /, '')
      .replace(/--output \S+/, `--output ${output}`)
      .split(' ');
    const { stdout, stderr } = await run(process.execPath, [join(root, 'bin/gymnast.js'), ...args], { cwd: root });

    assert.match(stderr, /\[collect\] 64\/64 rollouts/);
    assert.match(
      stderr,
      /\[collect\] health: 64 rollouts: \d+ healthy, \d+ warning, 0 unhealthy, \d+ failed(?: \([^)]*\))?; report in .*_health\.json/,
      "collect ends with the run's health",
    );
    assert.doesNotMatch(stderr, /Warning/, 'a first run prints no Node warnings (a listener leak showed here once)');
    // The key metrics: a heading naming the agent and the unit of rates, then one aligned row per metric.
    const table = /^arithmetic \(rates in percent\)\n((?: {2}.*\n)+)/m.exec(stdout);
    assert.ok(table, `a table of the key metrics under the agent's name: ${stdout}`);
    const metricRows = table[1]!.trimEnd().split('\n');
    assert.equal(new Set(metricRows.map((row) => row.length)).size, 1, `the values end in one column:\n${table[1]}`);
    const keyMetrics = new Map(metricRows.map((row) => row.trim().split(/ +/) as [string, string]));
    assert.match(keyMetrics.get('pass@4/accuracy')!, /^\d+\.\d%$/, 'pass@k in percent');
    assert.match(keyMetrics.get('mean/terminated')!, /^\d+\.\d%$/, 'the rate of terminated rollouts in percent, as pass@k is');
    assert.ok(Number(keyMetrics.get('mean/terminated')!.slice(0, -1)) > 1, 'scaled from the fraction the aggregate file holds');
    assert.match(keyMetrics.get('mean/reward')!, /^\d+(\.\d+)?$/, 'a reward is a number, not a rate');

    const rows = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map(
        (text, i) =>
          readFullRow(JSON.parse(text), `${output}:${i + 1}`).row as { messages: { role: string; token_ids?: number[]; generation_logprobs?: number[] }[] },
      );
    assert.equal(rows.length + readFileSync(output.replace('.jsonl', '_failures.jsonl'), 'utf8').split('\n').filter(Boolean).length, 64);
    for (const row of rows) {
      const sampled = row.messages.filter((message) => message.role === 'assistant');
      assert.ok(
        sampled.length > 0 && sampled.every((message) => message.token_ids!.length > 0 && message.token_ids!.length === message.generation_logprobs!.length),
      );
    }
    assert.equal(readFileSync(output.replace('.jsonl', '_materialized_inputs.jsonl'), 'utf8').trim().split('\n').length, 64);
  });

  it('run a second time, refuses to erase the first run and says how to go on; --overwrite starts afresh', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-quickstart-'));
    const output = join(dir, 'rollouts.jsonl');
    assert.equal((await gymnast(quickstartArgs(output))).code, 0);
    const held = [output, join(dir, 'rollouts_failures.jsonl')]
      .map((path) => ({ path, rows: readFileSync(path, 'utf8').split('\n').filter(Boolean).length }))
      .filter(({ rows }) => rows > 0)
      .map(({ path, rows }) => `${rows} ${rows === 1 ? 'row' : 'rows'} in ${path}`);
    const before = snapshot(dir);

    const again = await gymnast(quickstartArgs(output));
    assert.equal(again.code, 1);
    assert.equal(
      again.stderr,
      `gymnast: output-exists: --output ${output} already holds an earlier run's rows (${held.join(' and ')}), which a fresh start would erase. Run with --resume to continue that run, or with --overwrite to start afresh.\n`,
    );
    assert.deepEqual(snapshot(dir), before, 'every file byte for byte, and no lock left');

    const afresh = await gymnast([...quickstartArgs(output), '--overwrite']);
    assert.equal(afresh.code, 0, afresh.stderr);
    assert.match(afresh.stderr, /\[collect\] 64\/64 rollouts/);
  });
});
