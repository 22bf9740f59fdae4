import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/gymnast.js');
const input = join(root, 'examples/arithmetic.jsonl');

/** Runs `gymnast collect` with bad settings and returns its exit code, stderr and whether it wrote anything. */
async function refused(args: readonly string[], config?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-flags-'));
  const output = join(dir, 'out', 'rollouts.jsonl');
  const configArgs = config === undefined ? [] : ['--config', join(dir, 'run.yaml')];
  if (config !== undefined) writeFileSync(join(dir, 'run.yaml'), config);
  try {
    await run(process.execPath, [bin, 'collect', '--input', input, '--output', output, ...configArgs, ...args]);
    assert.fail(`collect ${args.join(' ')} was accepted`);
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    return { code, stderr, wrote: existsSync(join(dir, 'out')) };
  }
}

describe('gymnast collect refuses bad numbers before any work', { concurrency: 4 }, () => {
  const flagCases: [string[], RegExp][] = [
    [['--concurrency', '0'], /--concurrency.*expected a whole number ≥ 1, got 0/],
    [['--concurrency', '-1'], /--concurrency.*expected a whole number ≥ 1, got -1/],
    [['--concurrency', '2.5'], /--concurrency.*expected a whole number, got 2\.5/],
    [['--concurrency', '1e9'], /--concurrency.*expected at most 100000, got 1e9/],
    [['--concurrency', 'many'], /--concurrency.*expected a number or auto, got "many"/],
    [['--max-attempts', '0'], /--max-attempts.*expected a whole number ≥ 1, got 0/],
    [['--rollout-timeout', 'abc'], /--rollout-timeout.*expected a number, got "abc"/],
    [['--rollout-timeout', '0'], /--rollout-timeout.*expected a duration in seconds > 0/],
    // Node's timers overflow past ~24.8 days and fire at once: every rollout failed after 1 ms.
    [['--rollout-timeout', '3000000'], /--rollout-timeout.*expected at most a day \(86400 seconds\), got 3000000/],
    [['--max-seq-len', '0'], /--max-seq-len.*expected a whole number ≥ 1, got 0/],
    [['--max-turns', 'NaN'], /--max-turns.*expected a number, got "NaN"/],
    [['--limit', ''], /--limit.*expected a number/],
    [['--temperature', '-1'], /--temperature.*expected a number ≥ 0, got -1/],
    [['--seed', '-1.5'], /--seed.*expected a whole number, got -1\.5/],
    [['--max-tokens', '0'], /--max-tokens.*expected a number > 0, got 0/],
    [['--num-repeats', '0'], /--num-repeats.*expected a whole number ≥ 1, got 0/],
    [['--num-repeats', '{"arithmetic": -2}'], /--num-repeats.*"arithmetic": expected a whole number ≥ 1, got -2/],
    [['--num-repeats', '1e12'], /--num-repeats.*expected at most 100000, got 1e12/],
    [['--num-repeats', '{"_default": 100001}'], /--num-repeats.*"_default": expected at most 100000, got 100001/],
    [['--schedule', 'sometimes'], /--schedule.*expected async or lockstep, got "sometimes"/],
    [['--routing', 'random'], /--routing.*expected sticky, least-loaded, round-robin, got "random"/],
    [['--on-max-tokens', 'stop'], /--on-max-tokens.*expected continue or end, got "stop"/],
    [['--fail-on-error', '1.5'], /--fail-on-error.*expected a whole count of failures/],
    [['--request-timeout', '-5'], /--request-timeout.*expected a duration in seconds > 0, got -5/],
    [['--request-timeout', '1e9'], /--request-timeout.*expected at most a day \(86400 seconds\), got 1e9/],
    [['--request-attempts', '0'], /--request-attempts.*expected a whole number ≥ 1, got 0/],
    [['--retry-budget', '-0.1'], /--retry-budget.*expected a fraction ≥ 0, got -0\.1/],
    [['--max-line-mb', '0'], /--max-line-mb.*expected a size in MB > 0, got 0/],
    [['--max-line-mb', '1e6'], /--max-line-mb.*expected at most 511 MB \(longer text does not fit in one string\), got 1e6 MB/],
  ];

  for (const [args, message] of flagCases) {
    it(`${args.join(' ')}: exit 1, a message naming the flag, nothing written`, async () => {
      const result = await refused(args);
      assert.equal(result.code, 1);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(result.wrote, false);
    });
  }

  const configCases: [string, RegExp][] = [
    ['concurrency: 0\n', /run\.yaml: concurrency: expected a whole number ≥ 1, got 0/],
    ['temperature: hot\n', /run\.yaml: temperature: expected a number, got "hot"/],
    ['resume: maybe\n', /run\.yaml: resume: expected true or false, got "maybe"/],
    ['on-max-tokens: stop\n', /run\.yaml: on-max-tokens: expected continue or end, got "stop"/],
    ['rollout-timeout: 3000000\n', /run\.yaml: rollout-timeout: expected at most a day \(86400 seconds\), got 3000000/],
    ['request-timeout: 1e9\n', /run\.yaml: request-timeout: expected at most a day \(86400 seconds\), got 1000000000/],
    ['max-turns: [1, 2]\n', /run\.yaml: max-turns: expected a number, got "\[1,2\]"/],
    ['num-repeats: {arithmetic: 0}\n', /run\.yaml: num-repeats: "arithmetic": expected a whole number ≥ 1, got 0/],
    ['concurrency: [\n', /run\.yaml:2:1: not valid YAML or JSON: Flow sequence/],
  ];

  for (const [config, message] of configCases) {
    it(`config ${JSON.stringify(config.trim())}: exit 1, a message naming file and key, nothing written`, async () => {
      const result = await refused([], config);
      assert.equal(result.code, 1);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(result.wrote, false);
    });
  }

  it('refuses a run with no --input or --output, without a stack trace', async () => {
    for (const args of [
      ['--output', join(tmpdir(), 'never.jsonl')],
      ['--input', input],
    ]) {
      const failure = await run(process.execPath, [bin, 'collect', ...args]).then(
        () => assert.fail('accepted'),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(failure.code, 1);
      assert.match(failure.stderr, /collect needs --(input|output)/);
      assert.doesNotMatch(failure.stderr, /\n\s+at /);
    }
  });
});
