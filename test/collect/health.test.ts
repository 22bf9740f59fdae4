import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { aggregateFiles } from '../../src/collect/aggregate-files.js';
import { writeAggregateFile } from '../../src/collect/write-aggregate-file.js';
import { checkRunHealth } from '../../src/collect/health/check-run-health.js';
import { withServerAggregates } from '../../src/collect/server-aggregate.js';
import { healthDecoder } from '../../src/collect/health/health-decoder.js';
import type { HealthSummary, HealthVerdictLine } from '../../src/collect/health/health-summary.js';
import { healthSummaryLine } from '../../src/collect/health/health-summary.js';
import { assistant, collectArithmetic, corruptedCopy, editRow, lines, singleTurnLine, trainingItem, type EditableRow } from '../support/health-run.js';

/** Checks a run as `gymnast health` does (the embedded tokenizer when the run used it). */
async function health(output: string): Promise<{ summary: HealthSummary; verdicts: HealthVerdictLine[] }> {
  const summary = await checkRunHealth(output, await healthDecoder(output));
  const verdicts = lines(summary.files.verdicts).map((text) => JSON.parse(text) as HealthVerdictLine);
  return { summary, verdicts };
}

/** Every finding as `check @ file:line` (the file named by its suffix), in report order. */
const found = (verdicts: readonly HealthVerdictLine[], output: string) =>
  verdicts.flatMap((verdict) => verdict.findings.map((finding) => `${finding.check} @ ${verdict.where.replace(output.slice(0, -'.jsonl'.length), 'out')}`));

const planOf = (output: string) => output.replace(/\.jsonl$/, '_materialized_inputs.jsonl');

const planLineOf = (output: string, task: number, rollout: number) =>
  lines(planOf(output)).findIndex((text) => {
    const planned = JSON.parse(text) as { _ng_task_index: number; _ng_rollout_index: number };
    return planned._ng_task_index === task && planned._ng_rollout_index === rollout;
  }) + 1;

/** `copy` with the lines of its materialized inputs passed through `edit`. */
function withPlan(copy: string, edit: (plan: string[]) => string[]): string {
  writeFileSync(planOf(copy), `${edit(lines(planOf(copy))).join('\n')}\n`);
  return copy;
}

describe('rollout health', () => {
  let clean: string;
  before(async () => {
    clean = await collectArithmetic();
  });

  it('finds nothing wrong with a clean embedded-model run, the decode check included', async () => {
    const { summary, verdicts } = await health(clean);
    assert.deepEqual(verdicts, []);
    assert.deepEqual(summary.rollouts, { total: 32, healthy: 32, warning: 0, unhealthy: 0, evaluation_only: 0, failed: 0 });
    assert.deepEqual(summary.tasks, { total: 16, healthy: 16, warning: 0, unhealthy: 0 });
    assert.deepEqual(summary.skipped, []);
    assert.deepEqual(JSON.parse(readFileSync(summary.files.summary, 'utf8')), summary);
    assert.match(healthSummaryLine(summary), /^health: 32 rollouts: 32 healthy, 0 warning, 0 unhealthy, 0 failed; report in .*out_health\.json$/);
  });

  const cases: { name: string; corrupt: (output: string) => string; expected: (output: string) => string[] }[] = [
    {
      name: 'a line written twice is a duplicate-rollout naming both places',
      corrupt: (output) => corruptedCopy(output, (rows) => [...rows, rows[2]!]),
      expected: () => ['duplicate-rollout @ out.jsonl:33'],
    },
    {
      name: 'a deleted line is a missing-rollout at its planned row',
      corrupt: (output) => corruptedCopy(output, (rows) => rows.filter((_, index) => index !== 4)),
      expected: (output) => {
        const row = JSON.parse(lines(output)[4]!) as EditableRow;
        return [`missing-rollout @ out_materialized_inputs.jsonl:${planLineOf(output, row._ng_task_index, row._ng_rollout_index)}`];
      },
    },
    {
      name: 'a flipped token id no longer decodes to the text',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(2, (row) => (assistant(row).token_ids[0] = assistant(row).token_ids[0] === 12 ? 13 : 12)),
        ),
      // The message's copy no longer matches the one on response.output either.
      expected: () => ['token-text-mismatch @ out.jsonl:2', 'training-tokens-mismatch @ out.jsonl:2'],
    },
    {
      name: 'a positive logprob',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(3, (row) => (assistant(row).generation_logprobs![0] = 0.5)),
        ),
      expected: () => ['logprobs-positive @ out.jsonl:3', 'training-tokens-mismatch @ out.jsonl:3'],
    },
    {
      name: "a NaN logprob (as Python's json writes it)",
      corrupt: (output) =>
        corruptedCopy(output, (rows) =>
          rows.map((text, index) => (index === 3 ? text.replace(/"generation_logprobs":\[[^,\]]+/, '"generation_logprobs":[NaN') : text)),
        ),
      expected: () => ['logprobs-non-finite @ out.jsonl:4'],
    },
    {
      name: 'logprobs dropped',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(5, (row) => delete assistant(row).generation_logprobs),
        ),
      expected: () => ['logprobs-missing @ out.jsonl:5', 'training-tokens-mismatch @ out.jsonl:5'],
    },
    {
      name: 'one logprob too few',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(5, (row) => assistant(row).generation_logprobs!.pop()),
        ),
      expected: () => ['logprobs-length @ out.jsonl:5'],
    },
    {
      name: 'an empty generation (every count consistent with it)',
      corrupt: (output) => {
        const line = singleTurnLine(output);
        return corruptedCopy(
          output,
          editRow(line, (row) => {
            const removed = assistant(row).token_ids.length;
            Object.assign(assistant(row), { content: '', token_ids: [], generation_logprobs: [] });
            Object.assign(trainingItem(row), { generation_token_ids: [], generation_log_probs: [] });
            row.turns[0]!.generated_tokens = 0;
            row.response.usage.output_tokens -= removed;
            row.response.usage.total_tokens -= removed;
          }),
        );
      },
      expected: (output) => [`empty-generation @ out.jsonl:${singleTurnLine(output)}`],
    },
    {
      name: 'an observation count that disagrees with the messages',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(singleTurnLine(output), (row) => (row.turns[0]!.env_tokens += 1)),
        ),
      expected: (output) => [`token-count-mismatch @ out.jsonl:${singleTurnLine(output)}`],
    },
    {
      name: 'usage that disagrees with the turns',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(6, (row) => {
            row.response.usage.input_tokens += 1;
            row.response.usage.total_tokens += 1;
          }),
        ),
      expected: () => ['usage-mismatch @ out.jsonl:6'],
    },
    {
      name: 'a usage.total_tokens that is not input + output (each of them right)',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(6, (row) => (row.response.usage.total_tokens += 1)),
        ),
      expected: () => ['usage-mismatch @ out.jsonl:6'],
    },
    {
      name: 'a key planned twice is a duplicate-plan at its second plan line',
      corrupt: (output) =>
        withPlan(
          corruptedCopy(output, (rows) => rows),
          (plan) => [...plan, plan[0]!],
        ),
      expected: (output) => [`duplicate-plan @ out_materialized_inputs.jsonl:${lines(planOf(output)).length + 1}`],
    },
    {
      name: 'a result the plan does not hold is an unplanned-rollout at its row',
      corrupt: (output) => {
        const row = JSON.parse(lines(output)[4]!) as EditableRow;
        return withPlan(
          corruptedCopy(output, (rows) => rows),
          (plan) => plan.filter((_, index) => index !== planLineOf(output, row._ng_task_index, row._ng_rollout_index) - 1),
        );
      },
      expected: () => ['unplanned-rollout @ out.jsonl:5'],
    },
    {
      name: 'no assistant turn',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(singleTurnLine(output), (row) => {
            row.messages = row.messages.filter((message) => message.role !== 'assistant');
            // A row without gymnast's turn record (one from an agent server, say) and no output copy.
            row.response.output = [];
            for (const field of ['turns', 'num_turns']) Reflect.deleteProperty(row, field);
          }),
        ),
      expected: (output) => [`no-assistant-turn @ out.jsonl:${singleTurnLine(output)}`],
    },
    {
      name: 'a prompt that alone filled max_seq_len (its own finding, not a model that never answered)',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(singleTurnLine(output), (row) => {
            row.messages = row.messages.filter((message) => message.role !== 'assistant');
            row.response.output = [];
            row.turns = [];
            row.num_turns = 0;
          }),
        ),
      expected: (output) => [`prompt-too-long @ out.jsonl:${singleTurnLine(output)}`],
    },
    {
      name: 'a generation cut at max_tokens (a warning)',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(7, (row) => (row.turns[0]!.finish_reason = { unified: 'length', raw: 'length' })),
        ),
      expected: () => ['runaway-generation @ out.jsonl:7'],
    },
    {
      name: 'token drift (a warning)',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(8, (row) => (row.token_drift_count = 1)),
        ),
      expected: () => ['token-drift @ out.jsonl:8'],
    },
    {
      name: 'a turn whose prompt the server rendered and did not return (a warning)',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(8, (row) => (row.drift_unchecked = 1)),
        ),
      expected: () => ['drift-unchecked @ out.jsonl:8'],
    },
    {
      name: 'a token id changed on response.output, the copy NeMo RL trains on',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(2, (row) => (trainingItem(row).generation_token_ids[0]! += 1)),
        ),
      expected: () => ['training-tokens-mismatch @ out.jsonl:2'],
    },
    {
      name: 'a prompt id changed on response.output',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(2, (row) => (trainingItem(row).prompt_token_ids[3]! += 1)),
        ),
      expected: () => ['training-tokens-mismatch @ out.jsonl:2'],
    },
    {
      name: 'a positive logprob planted on response.output',
      corrupt: (output) =>
        corruptedCopy(
          output,
          editRow(3, (row) => (trainingItem(row).generation_log_probs[0] = 0.5)),
        ),
      expected: () => ['training-tokens-mismatch @ out.jsonl:3', 'logprobs-positive @ out.jsonl:3'],
    },
    {
      name: 'a line that is not JSON',
      corrupt: (output) => corruptedCopy(output, (rows) => [...rows.slice(0, 9), '{"cut off', ...rows.slice(9)]),
      expected: () => ['row-unreadable @ out.jsonl:10'],
    },
    {
      name: 'a task whose repeats all fail',
      corrupt: (output) => {
        const isTask3 = (text: string) => (JSON.parse(text) as EditableRow)._ng_task_index === 3;
        const failed = lines(output)
          .filter(isTask3)
          .map((text) => {
            const { _ng_task_index, _ng_rollout_index, responses_create_params, agent_ref } = JSON.parse(text) as EditableRow;
            return JSON.stringify({
              responses_create_params,
              agent_ref,
              _ng_task_index,
              _ng_rollout_index,
              schema_version: 2,
              duration_ms: 3,
              _ng_failure_class: 'env-error',
            });
          });
        return corruptedCopy(
          output,
          (rows) => rows.filter((text) => !isTask3(text)),
          (rows) => [...rows, ...failed],
        );
      },
      expected: () => ['task-all-failed @ out_failures.jsonl:1'],
    },
    {
      name: 'a task whose repeats all score 0 (a warning, apart from failing)',
      corrupt: (output) =>
        corruptedCopy(output, (rows) =>
          rows.map((text) => ((JSON.parse(text) as EditableRow)._ng_task_index === 5 ? text.replace(/"reward":1}$/, '"reward":0}') : text)),
        ),
      expected: (output) => [
        `task-all-zero-reward @ out.jsonl:${lines(output).findIndex((text) => (JSON.parse(text) as EditableRow)._ng_task_index === 5) + 1}`,
      ],
    },
  ];

  for (const { name, corrupt, expected } of cases) {
    it(`flags ${name}`, async () => {
      const copy = corrupt(clean);
      const { verdicts } = await health(copy);
      assert.deepEqual(found(verdicts, copy), expected(clean));
    });
  }

  it('counts each key once by its worst finding, failures by class', async () => {
    const isTask3 = (text: string) => (JSON.parse(text) as EditableRow)._ng_task_index === 3;
    const failures = lines(clean)
      .filter(isTask3)
      .map((text) => JSON.stringify({ ...(JSON.parse(text) as EditableRow), reward: undefined, _ng_failure_class: 'timeout' }));
    const copy = corruptedCopy(
      clean,
      (rows) => [...rows.filter((text) => !isTask3(text)), rows[0]!],
      () => failures,
    );
    const { summary } = await health(copy);
    assert.deepEqual(summary.rollouts, { total: 32, healthy: 29, warning: 0, unhealthy: 3, evaluation_only: 0, failed: 0 });
    assert.deepEqual(summary.tasks, { total: 16, healthy: 14, warning: 0, unhealthy: 2 });
    assert.deepEqual(summary.failures, { rows: 2, by_class: { timeout: 2 } });
    assert.deepEqual(Object.keys(summary.checks), ['duplicate-rollout', 'task-all-failed']);
  });

  it("reads NeMo Gym's own rows: no token record is a warning, the key checks still run", async () => {
    const fixture = (name: string) => new URL(`../fixtures/nemo-gym/blackjack/${name}`, import.meta.url).pathname;
    const directory = mkdtempSync(join(tmpdir(), 'gymnast-health-nemo-'));
    for (const name of ['example_rollouts.jsonl', 'example_rollouts_materialized_inputs.jsonl']) copyFileSync(fixture(name), join(directory, name));
    const { summary } = await health(join(directory, 'example_rollouts.jsonl'));
    assert.deepEqual(summary.rollouts, { total: 5, healthy: 0, warning: 5, unhealthy: 0, evaluation_only: 0, failed: 0 });
    assert.deepEqual(Object.keys(summary.checks), ['no-token-record']);
  });

  it("checks the training fields of NeMo Gym's own training rows (response.output only), the copy NeMo RL trains on", async () => {
    const directory = mkdtempSync(join(tmpdir(), 'gymnast-health-nemo-training-'));
    const output = join(directory, 'out.jsonl');
    copyFileSync(new URL('../fixtures/nemo-gym/competitive_coding_challenges/example_rollouts.jsonl', import.meta.url).pathname, output);
    const { verdicts } = await health(output);
    // Both rollouts of the task scored 0; nothing else, and no "no token record": their tokens are on response.output.
    assert.deepEqual(found(verdicts, output), ['task-all-zero-reward @ out.jsonl:1']);

    const planted = corruptedCopy(output, (rows) =>
      rows.map((text, index) => {
        const row = JSON.parse(text) as { response: { output: Record<string, number[]>[] } };
        const call = row.response.output[1]!;
        if (index === 0) call.generation_log_probs![2] = 0.25;
        // A second call whose prompt drops the first token of what came before: NeMo RL's "Non-contiguous messages found!".
        if (index === 1) row.response.output.push({ ...call, prompt_token_ids: [...call.prompt_token_ids!.slice(1), ...call.generation_token_ids!] });
        return JSON.stringify(row);
      }),
    );
    const { verdicts: flagged } = await health(planted);
    assert.deepEqual(found(flagged, planted), [
      'logprobs-positive @ out.jsonl:1',
      'training-tokens-malformed @ out.jsonl:2',
      'task-all-zero-reward @ out.jsonl:1',
    ]);
    assert.match(flagged[0]!.findings[0]!.message, /^response\.output\[1\]: generation_log_probs\[2\] is 0\.25, above 0$/);
    assert.match(flagged[1]!.findings[0]!.message, /^response\.output\[2\]\.prompt_token_ids do not continue the tokens before it \(from token 0\)/);
  });

  it('is checked by collect in the pass that aggregates the run: the same reports and aggregate as gymnast health and aggregate alone', async () => {
    const copy = corruptedCopy(clean, (rows) => rows);
    const { summary } = await health(copy);
    const stem = (output: string) => output.slice(0, -'.jsonl'.length);
    const text = (output: string, suffix: string) => readFileSync(`${stem(output)}${suffix}`, 'utf8').replaceAll(stem(output), 'out');
    for (const suffix of ['_health.json', '_health.jsonl']) assert.equal(text(clean, suffix), text(copy, suffix), suffix);
    assert.equal(summary.rollouts.total, 32);
    const aggregate = await withServerAggregates(
      await aggregateFiles({ results: [copy], failures: [`${stem(copy)}_failures.jsonl`], materialized: [`${stem(copy)}_materialized_inputs.jsonl`] }),
      new Map(),
      copy,
    );
    await writeAggregateFile(`${stem(copy)}_aggregate_metrics.json`, aggregate);
    assert.equal(text(clean, '_aggregate_metrics.json'), text(copy, '_aggregate_metrics.json'));
  });

  it('skips the decode check with a note when no tokenizer is known', async () => {
    const copy = corruptedCopy(clean, (rows) => rows);
    writeFileSync(copy.replace(/\.jsonl$/, '_run.json'), JSON.stringify({ plan_sha256: 'x', rollouts: 32, config: { policy: 'vllm-completions' } }));
    const { summary } = await health(copy);
    assert.deepEqual(
      summary.skipped.map((skipped) => skipped.check),
      ['token-text-mismatch', 'token-id-out-of-vocabulary'],
    );
    assert.match(summary.skipped[0]!.reason, /the run's policy is vllm-completions; pass --tokenizer DIR/);
  });
});
