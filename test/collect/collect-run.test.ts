import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { collect, type CollectOptions } from '../../src/collect/collect-run.js';
import type { RolloutOutcome, Sink, SinkRun } from '../../src/collect/sink.js';
import { InvalidInputError } from '../../src/collect/row-error.js';
import { ROW_SCHEMA_VERSION, SamplingParams } from '../../src/core/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';
import { gymnast } from '../support/run-cli.js';

const tokenizer = new CharTokenizer();
const row = (problem: string, answer: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    responses_create_params: { input: [{ role: 'user', content: `what is ${problem}?` }] },
    agent_ref: { name: 'arithmetic' },
    problem,
    answer,
    ...extra,
  });

/** Answers right, except that it fails on any prompt mentioning 13. */
const policy = () =>
  new ScriptedPolicy({
    tokenizer,
    script: (request) => {
      const question = request.messages[0]!.content;
      if (question.includes('13')) return { error: new Error('upstream 503') };
      const [a, b] = /(\d+)\+(\d+)/.exec(question)!.slice(1).map(Number);
      return { text: String(a! + b!) };
    },
  });

function setup(lines: string[]): { input: string; output: string; options: (extra?: Partial<CollectOptions>) => CollectOptions } {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-collect-'));
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, `${lines.join('\n')}\n`);
  const output = join(dir, 'out', 'rollouts.jsonl');
  return {
    input,
    output,
    options: (extra = {}) => ({
      input,
      output,
      concurrency: 4,
      policy: policy(),
      renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
      maxSeqLen: 512,
      maxTurns: 4,
      sampling: SamplingParams.parse({ max_tokens: 16, seed: 1 }),
      ...extra,
    }),
  };
}

const readRows = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((text) => JSON.parse(text) as Record<string, unknown>)
    : [];

describe('gymnast collect', () => {
  it('writes successes to the output and failures to the sidecar, never a failure as reward 0', async () => {
    const { output, options } = setup([row('1+2', 3), row('13+1', 14), row('4+5', 9)]);
    const summary = await collect(options({ numRepeats: 2 }));
    const rollouts = readRows(output);
    const failures = readRows(summary.paths.failures);
    assert.equal(rollouts.length, 4);
    assert.equal(failures.length, 2);
    assert.ok(rollouts.every((result) => result.reward === 1));
    assert.ok(failures.every((result) => result._ng_failure_class === 'policy-error' && !('reward' in result)));
    assert.deepEqual(
      failures.map((result) => [result._ng_task_index, result._ng_rollout_index]),
      [
        [1, 0],
        [1, 1],
      ],
    );
  });

  it("writes the environment's own terminated/truncated flags, and truncated for an episode cut by a limit", async () => {
    const { output, options } = setup([row('1+2', 3)]);
    const wrong = new ScriptedPolicy({ tokenizer, script: [{ text: '0' }] });
    await collect(options({ policy: wrong, maxTurns: 1 }));
    const [cut] = readRows(output);
    assert.deepEqual([cut!.terminated, cut!.truncated], [false, true], 'max-turns after one wrong answer');
    const right = setup([row('1+2', 3)]);
    await collect(right.options());
    const [done] = readRows(right.output);
    assert.deepEqual([done!.terminated, done!.truncated], [true, false]);
  });

  it('writes the same aggregate as `gymnast aggregate` on its file: key and agent metrics, verifier numbers and pass@k included', async () => {
    const { output, options } = setup([row('1+2', 3), row('4+5', 9), row('2+2', 5)]);
    const summary = await collect(options({ numRepeats: 3 }));
    const [atCollect] = JSON.parse(readFileSync(summary.paths.aggregate, 'utf8')) as {
      agent_metrics: Record<string, number>;
      key_metrics: Record<string, number>;
    }[];
    const run = await gymnast('aggregate', '--input', output);
    assert.equal(run.code, 0, run.stderr);
    const [again] = JSON.parse(run.stdout) as (typeof atCollect)[];
    assert.deepEqual(again!.key_metrics, atCollect!.key_metrics);
    assert.deepEqual(again!.agent_metrics, atCollect!.agent_metrics);
    assert.ok('mean/num_turns' in atCollect!.agent_metrics && 'pass@3/accuracy' in atCollect!.key_metrics);
  });

  it('writes the materialized plan and the aggregate metrics over successes only', async () => {
    const { options } = setup([row('1+2', 3), row('13+1', 14)]);
    const summary = await collect(options({ numRepeats: 3 }));
    const plan = readRows(summary.paths.materialized);
    assert.deepEqual(
      plan.map((result) => `${result._ng_task_index}:${result._ng_rollout_index}`),
      ['0:0', '0:1', '0:2', '1:0', '1:1', '1:2'],
    );
    const [aggregate] = JSON.parse(readFileSync(summary.paths.aggregate, 'utf8')) as {
      agent_metrics: Record<string, number>;
      group_level_metrics: { num_rollouts: number; missing_num_rollouts: number }[];
      rollout_metrics: Record<string, number>;
    }[];
    assert.equal(aggregate!.agent_metrics['mean/reward'], 1);
    assert.deepEqual(
      aggregate!.group_level_metrics.map((group) => group.missing_num_rollouts),
      [0],
    );
    assert.equal(aggregate!.rollout_metrics.natural_termination_rate, 1);
    assert.ok(!('rollout_infos' in aggregate!.group_level_metrics[0]!), 'groups do not list their rollouts unless asked');
  });

  it("lists each task's rollouts in the aggregate when asked (NeMo Gym's rollout_infos)", async () => {
    const { options } = setup([row('1+2', 3)]);
    const summary = await collect(options({ numRepeats: 2, rolloutInfos: true }));
    const [aggregate] = JSON.parse(readFileSync(summary.paths.aggregate, 'utf8')) as { group_level_metrics: { rollout_infos: { rollout_id: string }[] }[] }[];
    assert.deepEqual(
      aggregate!.group_level_metrics[0]!.rollout_infos.map((info) => info.rollout_id),
      ['0:0', '0:1'],
    );
  });

  it("lets a row change one sampling field and keeps the run's others (a row's temperature does not reset max_tokens to a default)", async () => {
    const changed = JSON.stringify({
      responses_create_params: { input: [{ role: 'user', content: 'what is 1+2?' }], temperature: 0.5 },
      agent_ref: { name: 'arithmetic' },
      problem: '1+2',
      answer: 3,
    });
    const { output, options } = setup([changed]);
    await collect(options({ sampling: SamplingParams.parse({ max_tokens: 16, top_p: 0.9, seed: 1 }) }));
    const [result] = readRows(output);
    assert.deepEqual(result!.sampling, { temperature: 0.5, top_p: 0.9, max_tokens: 16, seed: 1, greedy: false });
  });

  it('removes a health report an earlier run left beside the output: the new rows are never shown with its verdicts', async () => {
    const { output, options } = setup([row('1+2', 3)]);
    const report = { summary: join(dirname(output), 'rollouts_health.json'), verdicts: join(dirname(output), 'rollouts_health.jsonl') };
    const leaveStaleReport = () => {
      mkdirSync(dirname(output), { recursive: true });
      writeFileSync(report.summary, '{"stale": true}\n');
      writeFileSync(report.verdicts, '{"stale": true}\n');
    };
    leaveStaleReport();
    await collect(options());
    assert.deepEqual([existsSync(report.summary), existsSync(report.verdicts)], [false, false], 'a run without health checks leaves no report');
    leaveStaleReport();
    const summary = await collect(options({ resume: true, health: { decoder: tokenizer } }));
    assert.equal(summary.health?.rollouts.total, 1);
    assert.doesNotMatch(readFileSync(report.summary, 'utf8'), /stale/);
  });

  it('says, once the last rollout is done, that it is reading the rollouts back (and for what)', async () => {
    const { options } = setup([row('1+2', 3), row('4+5', 9)]);
    const events = async (extra: Partial<CollectOptions>) => {
      const seen: string[] = [];
      await collect(options({ ...extra, onProgress: ({ done, total }) => seen.push(`${done}/${total}`), onNotice: (message) => seen.push(message) }));
      return seen;
    };
    assert.deepEqual(await events({}), ['1/2', '2/2', 'reading the rollouts back for the aggregate metrics']);
    assert.deepEqual(await events({ resume: true, health: { decoder: tokenizer } }), [
      'resuming: 2 done before, running the rest',
      'reading the rollouts back for the aggregate metrics and the health checks',
    ]);
  });

  it('still writes the aggregate when the health pass fails, then reports that failure', async () => {
    const { options } = setup([row('1+2', 3)]);
    const broken = {
      decode: (): string => {
        throw new Error('decoder broke');
      },
    };
    const run = collect(options({ health: { decoder: broken } }));
    await assert.rejects(run, /decoder broke/);
    const aggregate = join(dirname(options().output), 'rollouts_aggregate_metrics.json');
    assert.equal((JSON.parse(readFileSync(aggregate, 'utf8')) as { agent_metrics: Record<string, number> }[])[0]!.agent_metrics['mean/reward'], 1);
  });

  it('reports every bad row with file, line and field before doing any work', async () => {
    const { input, output, options } = setup([
      row('1+2', 3),
      '{"responses_create_params": ',
      row('4+5', 9, { agent_ref: { name: 'nope' } }),
      JSON.stringify({ agent_ref: { name: 'arithmetic' }, problem: '1+1', answer: 2 }),
    ]);
    await assert.rejects(collect(options()), (error: unknown) => {
      assert.ok(error instanceof InvalidInputError);
      assert.deepEqual(
        error.issues.map((issue) => `${issue.line}:${issue.field}`),
        ['2:', '3:agent_ref.name', '4:responses_create_params.input'],
      );
      assert.match(error.message, new RegExp(`${input.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: agent_ref.name: unknown agent "nope"`));
      return true;
    });
    assert.equal(existsSync(output), false, 'nothing is written');
  });

  it('gives every outcome to extra sinks too, between start and finish, with the plan size', async () => {
    const { options } = setup([row('1+2', 3), row('13+1', 14)]);
    const events: string[] = [];
    const seen: RolloutOutcome[] = [];
    const sink: Sink = {
      start: async (run: SinkRun) => void events.push(`start ${run.plannedRollouts} ${run.resumed}`),
      write: async (outcome) => void seen.push(outcome),
      finish: async () => void events.push('finish'),
    };
    await collect(options({ numRepeats: 2, sinks: [sink] }));
    assert.deepEqual(events, ['start 4 false', 'finish']);
    assert.deepEqual(seen.map((outcome) => outcome.kind).sort(), ['failure', 'failure', 'result', 'result']);
    assert.ok(seen.every((outcome) => outcome.row.schema_version === ROW_SCHEMA_VERSION && outcome.row.duration_ms !== null));
  });

  it('runs the lockstep schedule too, to the same rows as the async one', async () => {
    const rows = [row('1+2', 3), row('13+1', 14), row('4+5', 9), row('7+8', 15)];
    const strip = (path: string) =>
      readRows(path)
        .sort((a, b) => (a._ng_task_index as number) - (b._ng_task_index as number) || (a._ng_rollout_index as number) - (b._ng_rollout_index as number))
        .map(({ duration_ms: _duration, started_at: _started, turns, ...rest }) => ({
          ...rest,
          turns: (turns as { timing: unknown }[]).map(({ timing: _timing, ...turn }) => turn),
        }));
    const lockstep = setup(rows);
    const lockstepSummary = await collect(lockstep.options({ numRepeats: 3, schedule: 'lockstep', concurrency: 5 }));
    const asynchronous = setup(rows);
    const asyncSummary = await collect(asynchronous.options({ numRepeats: 3 }));
    assert.equal(readRows(lockstep.output).length, 9);
    assert.deepEqual(strip(lockstep.output), strip(asynchronous.output));
    assert.equal(readRows(lockstepSummary.paths.failures).length, readRows(asyncSummary.paths.failures).length);
  });

  it('refuses settings out of range before reading the input, naming each', async () => {
    const { output, options } = setup([row('1+2', 3)]);
    await assert.rejects(collect(options({ concurrency: 0, maxAttempts: -1, rolloutTimeoutMs: Number.NaN })), {
      kind: 'config',
      message:
        /concurrency: expected a whole number ≥ 1, got 0; maxAttempts: expected a whole number ≥ 1, got -1; rolloutTimeoutMs: expected a number, got NaN/,
    });
    assert.equal(existsSync(output), false);
  });

  it('drops what an input row carries from an earlier run (reward, failure class, answer) so new rows start clean', async () => {
    const stale = { reward: 0, _ng_failure_class: 'transient', _ng_failure_terminal: true, extracted_answer: '99', _ng_attempt_index: 2 };
    const { output, options } = setup([row('1+2', 3, stale)]);
    const summary = await collect(options());
    const [result] = readRows(output);
    assert.equal(result!.reward, 1);
    assert.equal(result!._ng_failure_class, undefined);
    assert.equal(result!._ng_attempt_index, undefined);
    assert.notEqual(result!.extracted_answer, '99');
    assert.equal(summary.rollouts, 1);
  });
});
