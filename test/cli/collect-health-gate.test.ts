import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { suiteServer } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';
import { gymnast } from '../support/run-cli.js';

const input = fileURLToPath(new URL('../../examples/arithmetic.jsonl', import.meta.url));

describe('collect and gymnast health end a run by one rule (--max-unhealthy)', () => {
  const server = suiteServer();

  /**
   * `gymnast collect` of 8 rollouts against the test server(), every generation answered 503 (each
   * rollout fails). The failures are allowed (`--fail-on-error 8`), so the health gate is judged alone.
   */
  async function collectFailing(...args: string[]) {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-gate-')), 'rollouts.jsonl');
    server().faults.clear();
    server().faults.inject({ kind: 'latency', ms: 0 }); // the model lookup
    server().faults.inject({ kind: 'status', status: 503 }, 1_000);
    const run = await gymnast(
      'collect',
      '--input',
      input,
      '--output',
      output,
      '--limit',
      '8',
      '--policy',
      'vllm-completions',
      '--base-url',
      server().url,
      '--tokenizer',
      qwen3Directory,
      '--request-attempts',
      '1',
      '--fail-on-error',
      '8',
      ...args,
    );
    return { ...run, output };
  }

  it('collect exits 1 when more rollouts are unhealthy than --max-unhealthy allows (default 0), after writing everything, as gymnast health does on the same run', async () => {
    const collected = await collectFailing();
    assert.equal(collected.code, 1, collected.stderr);
    assert.match(
      collected.stderr,
      /\[collect\] health: 8 rollouts: 0 healthy, 0 warning, 8 unhealthy, 0 failed \(task-all-failed 8\); report in .*rollouts_health\.json; past --max-unhealthy 0\n/,
    );
    assert.match(
      collected.stderr,
      /^gymnast: unhealthy: 8 of 8 rollouts are unhealthy, more than --max-unhealthy 0 allows \(.*\); see .*rollouts_health\.json$/m,
    );
    // No aggregate file: no rollout succeeded (NeMo Gym writes none then either).
    for (const file of ['_failures.jsonl', '_health.json', '_health.jsonl', '_materialized_inputs.jsonl']) {
      assert.ok(existsSync(collected.output.replace('.jsonl', file)), `${file} written`);
    }
    const checked = await gymnast('health', collected.output);
    assert.equal(checked.code, 1);
    assert.match(checked.stderr, /^gymnast: unhealthy: 8 of 8 rollouts are unhealthy, more than --max-unhealthy 0 allows/);
  });

  it('a limit the run is within passes both, from the flag or a config file; a fraction counts against the rollouts', async () => {
    const counted = await collectFailing('--max-unhealthy', '8');
    assert.equal(counted.code, 0, counted.stderr);
    assert.match(counted.stderr, /; within --max-unhealthy 8\n/);
    assert.equal((await gymnast('health', counted.output, '--max-unhealthy', '8')).code, 0);

    const config = join(mkdtempSync(join(tmpdir(), 'gymnast-gate-')), 'run.yaml');
    writeFileSync(config, 'max-unhealthy: 0.5\n');
    const fraction = await collectFailing('--config', config);
    assert.equal(fraction.code, 1);
    assert.match(fraction.stderr, /; past --max-unhealthy 0\.5 \(4 of 8\)\n/);
  });

  it('refuses a --max-unhealthy that is neither a count nor a fraction, in both commands and a config file, before anything is written', async () => {
    const flag = await collectFailing('--max-unhealthy', '1.5');
    assert.equal(flag.code, 1);
    assert.match(flag.stderr, /--max-unhealthy.*expected a whole number ≥ 0 or a fraction between 0 and 1, got 1\.5/);
    assert.equal(existsSync(flag.output), false);
    const config = join(mkdtempSync(join(tmpdir(), 'gymnast-gate-')), 'run.yaml');
    writeFileSync(config, 'max-unhealthy: many\n');
    const fromFile = await collectFailing('--config', config);
    assert.equal(fromFile.code, 1);
    assert.match(fromFile.stderr, /run\.yaml: max-unhealthy: expected a whole number ≥ 0 or a fraction between 0 and 1, got many/);
    const health = await gymnast('health', input, '--max-unhealthy', '1.5');
    assert.equal(health.code, 1);
    assert.match(health.stderr, /--max-unhealthy.*expected a whole number ≥ 0 or a fraction between 0 and 1, got 1\.5/);
  });
});
