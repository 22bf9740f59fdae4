import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { FailureClass, readFullRow, readRow, readRowKeys, ROW_SCHEMA_VERSION, toFailureClass } from '../../src/core/index.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/rows/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => ({ value: JSON.parse(line) as Record<string, unknown>, where: `${name}:${i + 1}` }));

describe('result rows, version by version', () => {
  for (const version of ['v1', 'v2', 'v3']) {
    it(`reads ${version} results with every field checked, in today's shape`, () => {
      const rows = fixture(`${version}_rollouts.jsonl`).map(({ value, where }) => readFullRow(value, where));
      assert.equal(rows.length, 4);
      for (const read of rows) {
        assert.equal(read.kind, 'result');
        if (read.kind !== 'result') continue;
        assert.equal(read.row.schema_version, ROW_SCHEMA_VERSION);
        assert.equal(read.row.agent_ref.name, 'arithmetic');
        assert.ok(
          read.row.messages!.some((message) => message.generation_logprobs !== undefined),
          'sampled turns keep their logprobs',
        );
        assert.equal(typeof read.row.reward, 'number');
        if (version === 'v1') assert.equal(read.row.duration_ms, null, 'version 1 recorded no duration: null, not an invented 0');
        else assert.ok(read.row.duration_ms! > 0, `version ${version.slice(1)} records the real duration`);
      }
      assert.deepEqual(rows.map((read) => `${read.row._ng_task_index}:${read.row._ng_rollout_index}`).sort(), ['0:0', '0:1', '1:0', '1:1']);
    });

    it(`reads ${version} failures with their class and error, and no reward`, () => {
      const [read] = fixture(`${version}_rollouts_failures.jsonl`).map(({ value, where }) => readFullRow(value, where));
      assert.equal(read!.kind, 'failure');
      if (read!.kind !== 'failure') return;
      assert.equal(read!.row._ng_failure_class, 'transport');
      assert.equal(read!.row.error?.kind, 'transport');
      assert.equal('reward' in read!.row, false);
    });
  }

  it("maps NeMo Gym's failure classes onto ours, keeping the original and dropping the placeholder reward", () => {
    const [read] = fixture('nemo_gym_failures.jsonl').map(({ value, where }) => readRow(value, where));
    assert.equal(read!.kind, 'failure');
    if (read!.kind !== 'failure') return;
    assert.equal(read!.row._ng_failure_class, 'env-error');
    assert.equal(read!.row.nemo_gym_failure_class, 'judge_failed');
    assert.equal('reward' in read!.row, false, 'a judge failure is not a reward of 0');
    assert.equal(read!.row._ng_failure_judge_error, 'JudgeError: the judge model returned no verdict');
  });

  it("reads a NeMo Gym row without a response as one with an empty response, as NeMo Gym's compute_aggregate_metrics does (genrm_compare's stored rows)", () => {
    const read = readRow(
      { responses_create_params: { input: 'judge these' }, agent_ref: { name: 'genrm' }, _ng_task_index: 0, _ng_rollout_index: 0, reward: 0.5 },
      'genrm.jsonl:1',
    );
    assert.equal(read.kind, 'result');
    assert.deepEqual(read.row.response, {});
    assert.equal(read.row.reward, 0.5);
    const ours = fixture('v2_rollouts.jsonl')[0]!.value;
    assert.throws(
      () => readRow({ ...ours, response: undefined }, 'ours.jsonl:1'),
      { kind: 'invalid-row', message: /^ours\.jsonl:1: response: / },
      "gymnast's own rows always carry their response",
    );
  });

  it('every NeMo Gym class lands in the one enum', () => {
    for (const raw of [
      'judge_failed',
      'transient',
      'timeout_exceeded',
      'skipped',
      'kill_shaped',
      'legitimate',
      'agent_run_error',
      'agent_request_failed',
      'something_new',
    ]) {
      assert.ok(FailureClass.options.includes(toFailureClass(raw)), raw);
    }
    assert.equal(toFailureClass('timeout_exceeded'), 'timeout');
    assert.equal(toFailureClass('skipped'), 'aborted', 'a skipped rollout never ran: retried without using an attempt');
  });

  it('refuses a row from a newer gymnast, naming file, line and version', () => {
    const { value } = fixture('v3_rollouts.jsonl')[0]!;
    assert.throws(() => readRow({ ...value, schema_version: 4 }, 'future.jsonl:7'), {
      kind: 'invalid-row',
      message: /^future\.jsonl:7: schema_version: written by a newer gymnast \(schema version 4; this one reads versions 1 to 3\): upgrade gymnast/,
    });
    assert.throws(() => readRow({ ...value, schema_version: 'two' }, 'x.jsonl:1'), { kind: 'invalid-row', message: /schema_version: expected 2, 3 or absent/ });
  });

  it('names the field of a malformed row', () => {
    const { value } = fixture('v2_rollouts.jsonl')[0]!;
    assert.throws(() => readRow({ ...value, _ng_rollout_index: -1 }, 'r.jsonl:3'), { kind: 'invalid-row', message: /^r\.jsonl:3: _ng_rollout_index: / });
    assert.throws(() => readRow({ ...value, reward: 'high' }, 'r.jsonl:4'), { kind: 'invalid-row', message: /^r\.jsonl:4: reward: / });
    assert.throws(() => readRow([1, 2], 'r.jsonl:5'), { kind: 'invalid-row', message: /expected a JSON object/ });
    assert.throws(() => readFullRow({ ...value, messages: [{ role: 'assistant', content: 'x', token_ids: [1], generation_logprobs: [] }] }, 'r.jsonl:6'), {
      kind: 'invalid-row',
      message: /^r\.jsonl:6: messages\.0/,
    });
  });

  it('reads only the keys for a resume, from any version', () => {
    for (const name of ['v1_rollouts_failures.jsonl', 'v2_rollouts_failures.jsonl', 'v3_rollouts_failures.jsonl', 'nemo_gym_failures.jsonl']) {
      const { value, where } = fixture(name)[0]!;
      const keys = readRowKeys(value, where);
      assert.equal(typeof keys._ng_task_index, 'number');
      assert.ok(keys._ng_failure_class !== undefined);
    }
  });
});
