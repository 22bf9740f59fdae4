import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandRows, type SourceLine } from '../support/expand-rows.js';

const source = (line: number, row: Record<string, unknown>): SourceLine => ({ line, text: JSON.stringify(row) });
const question = (q: string, extra: Record<string, unknown> = {}) => ({ responses_create_params: { input: [{ role: 'user', content: q }] }, ...extra });
const keys = (rows: { _ng_task_index: number; _ng_rollout_index: number }[]) => rows.map((row) => `${row._ng_task_index}:${row._ng_rollout_index}`);

describe("NeMo Gym's row expansion", () => {
  it('repeats rows in "aabbcc" order with rollout indices per task', () => {
    const { rows } = expandRows([source(1, question('a')), source(2, question('b'))], { file: 'in.jsonl', agent: 'x', numRepeats: 2 });
    assert.deepEqual(keys(rows), ['0:0', '0:1', '1:0', '1:1']);
    assert.deepEqual(
      rows.map((row) => (row.responses_create_params.input as { content: string }[])[0]!.content),
      ['a', 'a', 'b', 'b'],
    );
  });

  it('merges byte-identical lines into one task whose rollouts are pooled', () => {
    const { rows } = expandRows([source(1, question('a')), source(2, question('b')), source(3, question('a'))], {
      file: 'in.jsonl',
      agent: 'x',
      numRepeats: 2,
    });
    assert.deepEqual(keys(rows), ['0:0', '0:1', '0:2', '0:3', '1:0', '1:1']);
  });

  it('keeps caller-stamped task indices with keepTaskIndices, the automatic counter starting at 0 on its own', () => {
    const { rows } = expandRows([source(1, question('a', { _ng_task_index: 7 })), source(2, question('b'))], {
      file: 'in.jsonl',
      agent: 'x',
      keepTaskIndices: true,
    });
    assert.deepEqual(keys(rows), ['0:0', '7:0']);
  });

  it("puts the seed in responses_create_params.seed, the rollout's index (002 rollout_collection.py _preprocess_rows_from_config: num_repeats_add_seed)", () => {
    const a = question('a');
    (a.responses_create_params as Record<string, unknown>).seed = 99;
    const { rows } = expandRows([source(1, a), source(2, question('b'))], { file: 'in.jsonl', agent: 'x', numRepeats: 2, addSeed: true });
    assert.deepEqual(
      rows.map((r) => r.responses_create_params.seed),
      [0, 1, 0, 1],
    );
    assert.deepEqual(
      rows.map((r) => r.responses_create_params.metadata),
      [undefined, undefined, undefined, undefined],
    );
  });

  it('puts the seed in metadata.extra_body with seedField extra-body (NeMo Gym since #1099), merged into the JSON text there and keeping other metadata', () => {
    const row = question('a');
    (row.responses_create_params as Record<string, unknown>).metadata = { user: 'me', extra_body: '{"top_k":5}' };
    const { rows } = expandRows([source(1, row)], { file: 'in.jsonl', agent: 'x', numRepeats: 2, addSeed: true, seedField: 'extra-body' });
    assert.deepEqual(
      rows.map((r) => r.responses_create_params.metadata),
      [
        { user: 'me', extra_body: '{"top_k":5,"seed":0}' },
        { user: 'me', extra_body: '{"top_k":5,"seed":1}' },
      ],
    );
    assert.deepEqual(
      rows.map((r) => r.responses_create_params.seed),
      [undefined, undefined],
    );
  });

  it('applies --set overrides to responses_create_params, dotted keys reaching into nested objects', () => {
    const { rows } = expandRows([source(1, question('a'))], { file: 'in.jsonl', agent: 'x', overrides: { temperature: 0.5, 'metadata.tag': 'eval' } });
    assert.equal(rows[0]!.responses_create_params.temperature, 0.5);
    assert.deepEqual(rows[0]!.responses_create_params.metadata, { tag: 'eval' });
  });

  it('reads per-agent repeat counts with a _default, and stamps the resolved agent', () => {
    const rows = [source(1, question('a', { agent_ref: { name: 'math' } })), source(2, question('b'))];
    const { rows: expanded, unusedRepeatAgents } = expandRows(rows, { file: 'in.jsonl', agent: 'chat', numRepeats: { math: 3, _default: 1, unused: 2 } });
    assert.deepEqual(
      expanded.map((row) => row.agent_ref.name),
      ['math', 'math', 'math', 'chat'],
    );
    assert.deepEqual(unusedRepeatAgents, ['unused']);
  });

  it('reports every row without an agent or a repeat count, naming file, line and field', () => {
    const rows = [source(1, question('a')), source(2, question('b', { agent_ref: { name: 'other' } })), source(3, question('c'))];
    const { issues } = expandRows(rows, { file: 'data/in.jsonl', numRepeats: { math: 2 } });
    assert.deepEqual(
      issues.map((issue) => `${issue.file}:${issue.line}:${issue.field}`),
      ['data/in.jsonl:1:agent_ref.name', 'data/in.jsonl:2:agent_ref.name', 'data/in.jsonl:3:agent_ref.name'],
    );
    assert.match(issues[1]!.message, /agent "other" has no entry in --num-repeats/);
  });

  it('refuses a row nested deeper than 100 levels before cloning it, naming the line, and checks the next one', () => {
    const deep = `{"responses_create_params":{"input":"a"},"x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const { rows, issues } = expandRows([{ line: 1, text: deep }, source(2, question('b'))], { file: 'in.jsonl', agent: 'x' });
    assert.deepEqual(
      issues.map((issue) => `${issue.line}: ${issue.message}`),
      ['1: nested deeper than 100 levels'],
    );
    assert.equal(rows.length, 1);
  });

  it('takes a row of exactly 100 levels, and brackets inside text do not count as levels', () => {
    const row = (levels: number) => `{"responses_create_params":{"input":"${'[{'.repeat(200)}"},"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    const { rows, issues } = expandRows(
      [
        { line: 1, text: row(100) },
        { line: 2, text: row(101) },
      ],
      { file: 'in.jsonl', agent: 'x' },
    );
    assert.deepEqual(
      issues.map((issue) => `${issue.line}: ${issue.message}`),
      ['2: nested deeper than 100 levels'],
    );
    assert.equal(rows.length, 1);
  });

  it('gives each rollout of a line its own copy of what --set and --add-seed change', () => {
    const row = question('a');
    (row.responses_create_params as Record<string, unknown>).metadata = { user: 'me', nested: { kept: 1 } };
    const { rows } = expandRows([source(1, row)], {
      file: 'in.jsonl',
      agent: 'x',
      numRepeats: 2,
      addSeed: true,
      seedField: 'extra-body',
      overrides: { 'metadata.nested.tag': 'eval' },
    });
    const [first, second] = rows.map((r) => r.responses_create_params.metadata as { nested: Record<string, unknown>; extra_body: string });
    first!.nested.tag = 'changed';
    assert.deepEqual(second, { user: 'me', nested: { kept: 1, tag: 'eval' }, extra_body: '{"seed":1}' });
  });

  it('refuses a repeat count below 1', () => {
    assert.throws(() => expandRows([source(1, question('a'))], { file: 'in.jsonl', agent: 'x', numRepeats: 0 }), /at least 1/);
  });

  it("refuses a repeat count above 100,000 before planning anything (a row's rollouts are planned together), naming the agent", () => {
    assert.throws(() => expandRows([source(1, question('a'))], { file: 'in.jsonl', agent: 'x', numRepeats: 1e12 }), {
      name: 'ConfigError',
      message: '--num-repeats must be at most 100000, got 1000000000000',
    });
    assert.throws(
      () => expandRows([source(1, question('a'))], { file: 'in.jsonl', agent: 'x', numRepeats: { x: 100_001 } }),
      /at most 100000, got 100001 for x/,
    );
    assert.equal(expandRows([source(1, question('a'))], { file: 'in.jsonl', agent: 'x', numRepeats: 100_000 }).rows.length, 100_000);
  });
});
