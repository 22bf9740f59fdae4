import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRunHealth } from '../src/collect/health/check-run-health.js';
import { healthDecoder } from '../src/collect/health/health-decoder.js';
import { collectArithmetic, lines } from '../test/support/health-run.js';
import type { BenchResult } from './bench-result.js';

const ROWS = 20_000;

/** A run of 20,000 healthy rows, made of a real collect's rows renumbered (as the health spec builds it). */
async function largeRun(): Promise<string> {
  const clean = await collectArithmetic();
  const directory = mkdtempSync(join(tmpdir(), 'gymnast-bench-health-'));
  const output = join(directory, 'out.jsonl');
  const many = (file: string) => {
    const source = lines(file).map((text) => JSON.parse(text) as Record<string, unknown>);
    const rows = Array.from({ length: ROWS }, (_, i) =>
      JSON.stringify({ ...source[i % source.length], _ng_task_index: Math.floor(i / 2), _ng_rollout_index: i % 2 }),
    );
    return `${rows.join('\n')}\n`;
  };
  writeFileSync(output, many(clean));
  writeFileSync(join(directory, 'out_materialized_inputs.jsonl'), many(clean.replace(/\.jsonl$/, '_materialized_inputs.jsonl')));
  copyFileSync(clean.replace(/\.jsonl$/, '_run.json'), join(directory, 'out_run.json'));
  return output;
}

/** Reading and parsing every row of the run alone: the floor any check of the file sits on. */
function parseOnly(output: string): number {
  const started = performance.now();
  let rows = 0;
  for (const text of readFileSync(output, 'utf8').split('\n')) if (text !== '') rows += JSON.parse(text) === null ? 0 : 1;
  if (rows !== ROWS) throw new Error(`read ${rows} rows, not ${ROWS}`);
  return (performance.now() - started) / 1000;
}

/**
 * `gymnast health` over 20,000 rows (every check, the plan and the tokenizer decode included), against
 * reading and parsing the same file: the spec holds that it reads every row in bounded memory; how fast
 * it is belongs here.
 */
export async function healthThroughput(): Promise<BenchResult> {
  const output = await largeRun();
  parseOnly(output);
  const baseline = Math.min(parseOnly(output), parseOnly(output));
  const decoder = await healthDecoder(output);
  const started = performance.now();
  const summary = await checkRunHealth(output, decoder);
  const seconds = (performance.now() - started) / 1000;
  if (summary.rollouts.healthy !== ROWS) throw new Error(`${summary.rollouts.healthy} of ${ROWS} rows healthy`);
  return {
    name: `gymnast health over ${ROWS.toLocaleString('en')} rows vs reading and parsing them`,
    baseline: { label: 'read + JSON.parse', value: baseline, unit: 's' },
    measured: { label: 'health, every check', value: seconds, unit: 's' },
    lowerIsBetter: true,
  };
}
