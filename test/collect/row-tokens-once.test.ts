import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { aggregateFiles } from '../../src/collect/aggregate-files.js';
import { collect, type CollectOptions } from '../../src/collect/collect-run.js';
import { exportNemoRl } from '../../src/collect/export-nemo-rl.js';
import { checkRunHealth } from '../../src/collect/health/check-run-health.js';
import { healthDecoder } from '../../src/collect/health/health-decoder.js';
import type { HealthVerdictLine } from '../../src/collect/health/health-summary.js';
import { loadResumeState } from '../../src/collect/resume-state.js';
import type { RolloutOutcome } from '../../src/collect/sink.js';
import { readFullRow, SamplingParams } from '../../src/core/index.js';
import { rolloutDetail } from '../../src/viewer/rollout-views.js';
import { RunIndex } from '../../src/viewer/run-index.js';
import { runOverview } from '../../src/viewer/run-overview.js';
import { JinjaChatTemplate, TemplateRenderer, type HfTokenizer } from '../../src/tokens/index.js';
import { embeddedPolicy } from '../support/embedded-arithmetic.js';

const arithmetic = new URL('../../examples/arithmetic.jsonl', import.meta.url).pathname;
const fixture = (name: string) => new URL(`../fixtures/rows/${name}`, import.meta.url).pathname;
const SIDE_FILES = ['_materialized_inputs.jsonl', '_failures.jsonl', '_run.json'];
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');

/** `gymnast collect` on the embedded model through the library (seeded: every run the same run), and the rows it handed its sinks. */
async function collectRun(directory: string, resume = false): Promise<{ output: string; rows: RolloutOutcome[] }> {
  const policy = await embeddedPolicy();
  const tokenizer = policy.tokenizer as HfTokenizer;
  const output = join(directory, 'out.jsonl');
  const rows: RolloutOutcome[] = [];
  const options: CollectOptions = {
    input: arithmetic,
    output,
    numRepeats: 2,
    policy,
    renderer: new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config), { drift: 'strict' }),
    maxSeqLen: policy.maxModelLen,
    sampling: SamplingParams.parse({ max_tokens: 96, seed: 7 }),
    sinks: [{ start: async () => {}, write: async (outcome) => void rows.push(outcome), finish: async () => {} }],
    resume,
  };
  await collect(options);
  return { output, rows };
}

/**
 * The run as gymnast wrote it before schema version 3: every row serialized as it was built (each
 * message's ids on it too), `schema_version` 2; the plan and run files are the same.
 */
function writtenTheOldWay(output: string, rows: readonly RolloutOutcome[], keep = rows.length): string {
  const directory = mkdtempSync(join(tmpdir(), 'gymnast-tokens-old-'));
  const stem = output.slice(0, -'.jsonl'.length);
  for (const suffix of SIDE_FILES) if (existsSync(`${stem}${suffix}`)) copyFileSync(`${stem}${suffix}`, join(directory, `out${suffix}`));
  const old = join(directory, 'out.jsonl');
  const results = rows.slice(0, keep).filter((outcome) => outcome.kind === 'result');
  writeFileSync(old, results.map((outcome) => `${JSON.stringify({ ...outcome.row, schema_version: 2 })}\n`).join(''));
  return old;
}

/** Every array of numbers in a JSON value, by path (`messages.2.token_ids`). */
function numberArrays(value: unknown, path = ''): string[] {
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'number')) return [path];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => numberArrays(item, path === '' ? key : `${path}.${key}`));
}

async function exported(input: string): Promise<string> {
  const output = join(mkdtempSync(join(tmpdir(), 'gymnast-tokens-export-')), 'nemo-rl.jsonl');
  await exportNemoRl(input, output);
  return readFileSync(output, 'utf8');
}

/** What the viewer shows of every rollout of a run: its summary, and its token sequence with logprobs. */
async function viewed(output: string): Promise<unknown[]> {
  const index = await RunIndex.build({ id: 'out', output, failures: output.replace(/\.jsonl$/, '_failures.jsonl') });
  const count = runOverview(index).counts.rollouts;
  const views: unknown[] = [];
  for (let at = 0; at < count; at++) {
    const { summary, tokens } = await rolloutDetail(index, at);
    views.push({ summary, tokens });
  }
  return views;
}

/** The findings of `gymnast health` on a run, named by key rather than line. */
async function healthFindings(output: string): Promise<{ rollouts: unknown; findings: string[] }> {
  const summary = await checkRunHealth(output, await healthDecoder(output));
  const verdicts = lines(summary.files.verdicts).map((text) => JSON.parse(text) as HealthVerdictLine);
  const findings = verdicts.flatMap((verdict) => verdict.findings.map((finding) => `${finding.check} ${verdict._ng_task_index}:${verdict._ng_rollout_index}`));
  return { rollouts: summary.rollouts, findings: findings.sort() };
}

describe('token ids stored once per row (schema version 3)', () => {
  let output: string;
  let rows: RolloutOutcome[];
  let old: string;
  before(async () => {
    ({ output, rows } = await collectRun(mkdtempSync(join(tmpdir(), 'gymnast-tokens-once-'))));
    old = writtenTheOldWay(output, rows);
  });

  it("writes each id and logprob array once: NeMo Gym's training fields on response.output, and only the ids after the last model call on the messages", () => {
    const written = lines(output);
    assert.equal(written.length, 32);
    let multiTurn = 0;
    for (const [i, line] of written.entries()) {
      const row = JSON.parse(line) as { num_turns: number; messages: { role: string }[]; response: { output: Record<string, unknown>[] } };
      const lastCall = row.messages.findLastIndex((message) => message.role === 'assistant');
      const calls = row.response.output.flatMap((item, at) => ('generation_token_ids' in item ? [at] : []));
      assert.equal(calls.length, row.num_turns, `line ${i + 1}: a model call per turn`);
      if (row.num_turns > 1) multiTurn += 1;
      assert.deepEqual(
        numberArrays(row).sort(),
        [
          ...calls.flatMap((at) => [
            `response.output.${at}.generation_log_probs`,
            `response.output.${at}.generation_token_ids`,
            `response.output.${at}.prompt_token_ids`,
          ]),
          ...row.messages.flatMap((_, m) => (m > lastCall ? [`messages.${m}.token_ids`] : [])),
        ].sort(),
        `line ${i + 1}`,
      );
    }
    assert.ok(multiTurn >= 8, `${multiTurn} rollouts with tool calls`);
    const bytes = (text: string) => Buffer.byteLength(text);
    assert.ok(bytes(readFileSync(output, 'utf8')) < 0.8 * bytes(readFileSync(old, 'utf8')), 'the file is smaller by the copy it no longer holds');
  });

  it('reads back, field for field, the rows it was given (every message with its ids and logprobs)', () => {
    const results = rows.filter((outcome) => outcome.kind === 'result').map((outcome) => JSON.parse(JSON.stringify(outcome.row)) as unknown);
    assert.deepEqual(
      lines(output).map((line, i) => readFullRow(JSON.parse(line), `out.jsonl:${i + 1}`).row),
      results,
    );
  });

  it("exports to NeMo RL's message log byte for byte as the same rollouts written the old way", async () => {
    const [now, before] = await Promise.all([exported(output), exported(old)]);
    assert.equal(now.split('\n').length - 1, 32);
    assert.equal(now, before);
    assert.equal(await exported(fixture('v3_multi_turn.jsonl')), await exported(fixture('v2_multi_turn.jsonl')), 'the rows of two gymnast versions');
  });

  it('aggregates, checks health and views a version 2 run and a version 3 run alike', async () => {
    const aggregate = (file: string) => aggregateFiles({ results: [file], materialized: [file.replace(/\.jsonl$/, '_materialized_inputs.jsonl')] });
    assert.deepEqual(await aggregate(output), await aggregate(old));
    const health = await healthFindings(output);
    assert.deepEqual(health.rollouts, { total: 32, healthy: 32, warning: 0, unhealthy: 0, evaluation_only: 0, failed: 0 });
    assert.deepEqual(await healthFindings(old), health);
    const views = await viewed(output);
    assert.equal(views.length, 32);
    assert.deepEqual(await viewed(old), views);
  });

  it('resumes a run that an older gymnast began, to every rollout once, and the mixed file reads as one', async () => {
    const half = writtenTheOldWay(output, rows, 16);
    const directory = join(half, '..');
    assert.equal(loadResumeState({ output: half, failures: join(directory, 'out_failures.jsonl') }).done, 16);
    const resumed = await collectRun(directory, true);
    assert.equal(resumed.rows.length, 16, 'only the rollouts the old rows did not hold');
    const keys = lines(half).map((line) => {
      const row = JSON.parse(line) as { _ng_task_index: number; _ng_rollout_index: number; schema_version: number };
      return `${row._ng_task_index}:${row._ng_rollout_index} v${row.schema_version}`;
    });
    assert.equal(keys.length, 32);
    assert.equal(new Set(keys.map((key) => key.split(' ')[0])).size, 32, 'every rollout once');
    assert.deepEqual([...new Set(keys.map((key) => key.split(' ')[1]))].sort(), ['v2', 'v3']);
    assert.deepEqual((await healthFindings(half)).findings, []);
    assert.equal((await exported(half)).split('\n').length - 1, 32);
  });
});
