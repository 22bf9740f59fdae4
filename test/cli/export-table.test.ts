import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { readFullRow } from '../../src/core/index.js';
import { RemotePolicy, vllmCompletionsBackend } from '../../src/policy/index.js';
import { qwen3Tokenizer, startQwen3Server } from '../support/qwen3.js';
import { gymnast } from '../support/run-cli.js';
import { calculator, collectToolCallTasks } from '../support/tool-call-run.js';

type Row = {
  _ng_task_index: number;
  _ng_rollout_index: number;
  agent_ref: { name: string };
  termination?: { kind: string };
  reward: number;
  reward_components?: Record<string, number>;
  num_turns?: number;
  truncated?: boolean;
  extracted_answer?: string | null;
  messages: { role: string; token_ids: number[]; generation_logprobs?: number[] }[];
};

const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n');
/** Rollout rows as gymnast's readers read them: every message with its ids, which the file stores once, on response.output. */
const readRows = (path: string) => lines(path).map((line, i) => readFullRow(JSON.parse(line), `${path}:${i + 1}`).row as unknown as Row);

const tokenizer = await qwen3Tokenizer();
const { url } = await startQwen3Server({ tokenization: 'non-canonical', respond: calculator });
const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [url], tokenizer, model: 'm', maxModelLen: 4096 });
after(() => policy.close());

/**
 * Two arithmetic tasks answered after a tool call and a third whose prompt alone fills max_seq_len
 * (a zero-turn row); the first row given reward components and an answer with a quote, a comma and
 * a line break in it, as an environment may record them.
 */
async function run(): Promise<{ dir: string; rollouts: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-export-table-'));
  const collected = join(dir, 'collected.jsonl');
  await collectToolCallTasks(policy, dir, collected);
  const rows = lines(collected).map((line) => JSON.parse(line) as Record<string, unknown>);
  Object.assign(rows[0]!, { reward_components: { correct: 1, 'format, "tags"': 0.25 }, extracted_answer: 'say "3",\nthen stop' });
  Object.assign(rows[1]!, { reward_components: { correct: 1 } });
  const rollouts = join(dir, 'rollouts.jsonl');
  writeFileSync(rollouts, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
  return { dir, rollouts };
}

/** The sequence as NeMo RL trains it, cut at the first generated token: what each exported row must hold. */
function sequence(row: Row) {
  const first = row.messages.findIndex((message) => message.role === 'assistant' && message.generation_logprobs !== undefined);
  const cut = first === -1 ? row.messages.length : first;
  const generation = row.messages.slice(cut);
  return {
    prompt_token_ids: row.messages.slice(0, cut).flatMap((message) => message.token_ids),
    generation_token_ids: generation.flatMap((message) => message.token_ids),
    generation_logprobs: generation.flatMap((message) => message.generation_logprobs ?? message.token_ids.map(() => 0)),
    generation_loss_mask: generation.flatMap((message) => message.token_ids.map(() => (message.generation_logprobs ? 1 : 0))),
  };
}

/** An RFC 4180 reader, written here so that the spec does not read the file with the code that wrote it. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    record.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    const next = text[i + 1];
    if (quoted && char === '"' && next === '"') {
      field += '"';
      i++;
    } else if (char === '"') quoted = !quoted;
    else if (quoted) field += char;
    else if (char === ',') endField();
    else if (char === '\r' && next === '\n') {
      endField();
      records.push(record);
      record = [];
      i++;
    } else field += char;
  }
  assert.equal(field + record.join(''), '', 'the last record ends with CRLF');
  return records;
}

describe('gymnast export --format parquet', () => {
  it('writes one row per rollout that an independent Parquet reader (Arrow) loads: keys, agent, termination, rewards, turns, and the token sequence as list columns', async () => {
    const { dir, rollouts } = await run();
    const out = join(dir, 'rollouts.parquet');
    const cli = await gymnast('export', '--format', 'parquet', '-i', rollouts, '-o', out);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /wrote 3 rollouts to .*rollouts\.parquet, 1 masked \(loss_multiplier 0: 1 zero-turn/);

    const table = tableFromIPC(readParquet(readFileSync(out)).intoIPCStream());
    assert.deepEqual(
      table.schema.fields.map((field) => `${field.name}: ${field.type}`),
      [
        '_ng_task_index: Int32',
        '_ng_rollout_index: Int32',
        'agent: Utf8',
        'termination: Utf8',
        'reward: Float64',
        'reward_correct: Float64',
        'reward_format, "tags": Float64',
        'num_turns: Int32',
        'truncated: Bool',
        'extracted_answer: Utf8',
        'token_drift_count: Int32',
        'duration_ms: Float64',
        'loss_multiplier: Int32',
        'prompt_token_ids: List<Int32>',
        'generation_token_ids: List<Int32>',
        'generation_logprobs: List<Float64>',
        'generation_loss_mask: List<Int32>',
      ],
    );
    const rows = readRows(rollouts);
    assert.equal(table.numRows, rows.length);
    const read = table.toArray().map((record) => {
      const value = record.toJSON() as Record<string, unknown>;
      return Object.fromEntries(Object.entries(value).map(([key, cell]) => [key, cell && typeof cell === 'object' ? [...(cell as Iterable<number>)] : cell]));
    });
    read.forEach((record, i) => {
      const row = rows[i]!;
      assert.deepEqual(
        {
          _ng_task_index: record._ng_task_index,
          _ng_rollout_index: record._ng_rollout_index,
          agent: record.agent,
          termination: record.termination,
          reward: record.reward,
          reward_correct: record.reward_correct,
          num_turns: record.num_turns,
          truncated: record.truncated,
          extracted_answer: record.extracted_answer,
          prompt_token_ids: record.prompt_token_ids,
          generation_token_ids: record.generation_token_ids,
          generation_logprobs: record.generation_logprobs,
          generation_loss_mask: record.generation_loss_mask,
        },
        {
          _ng_task_index: row._ng_task_index,
          _ng_rollout_index: row._ng_rollout_index,
          agent: row.agent_ref.name,
          termination: row.termination!.kind,
          reward: row.reward,
          reward_correct: row.reward_components?.correct ?? null,
          num_turns: row.num_turns,
          truncated: row.truncated === true,
          extracted_answer: row.extracted_answer ?? null,
          ...sequence(row),
        },
        `row ${i}`,
      );
    });
    assert.deepEqual(
      read.map((record) => [record.loss_multiplier, (record.generation_token_ids as number[]).length > 0]),
      [
        [1, true],
        [1, true],
        [0, false],
      ],
      'the two answered rows train; the zero-turn row is all prompt, masked',
    );
    assert.equal(read[0]!['reward_format, "tags"'], 0.25);
    assert.equal(read[1]!['reward_format, "tags"'], null, 'a component a row lacks is null');
  });
});

describe('gymnast export --format parquet, rows of every schema version', () => {
  for (const fixture of ['v1_rollouts', 'v2_multi_turn', 'v3_rollouts', 'v3_multi_turn'])
    it(`reads ${fixture}.jsonl through the row readers: each row's token sequence as readFullRow gives it`, async () => {
      const rollouts = fileURLToPath(new URL(`../fixtures/rows/${fixture}.jsonl`, import.meta.url));
      const out = join(mkdtempSync(join(tmpdir(), 'gymnast-export-table-')), 'rollouts.parquet');
      const cli = await gymnast('export', '--format', 'parquet', '-i', rollouts, '-o', out);
      assert.equal(cli.code, 0, cli.stderr);
      const table = tableFromIPC(readParquet(readFileSync(out)).intoIPCStream());
      const lists = (name: string) =>
        table
          .getChild(name)!
          .toArray()
          .map((list: Iterable<number>) => [...list]);
      const rows = readRows(rollouts);
      assert.equal(table.numRows, rows.length);
      const expected = rows.map(sequence);
      for (const name of ['prompt_token_ids', 'generation_token_ids', 'generation_logprobs', 'generation_loss_mask'] as const)
        assert.deepEqual(
          lists(name),
          expected.map((columns) => columns[name]),
          name,
        );
    });
});

describe('gymnast export --format csv', () => {
  it('writes a per-rollout summary without token arrays that an RFC 4180 reader parses back, quotes, commas and line breaks intact', async () => {
    const { dir, rollouts } = await run();
    const out = join(dir, 'rollouts.csv');
    const cli = await gymnast('export', '--format', 'csv', '-i', rollouts, '-o', out);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /wrote 3 rollouts to .*rollouts\.csv/);
    const [header, ...records] = parseCsv(readFileSync(out, 'utf8'));
    assert.deepEqual(header, [
      '_ng_task_index',
      '_ng_rollout_index',
      'agent',
      'termination',
      'reward',
      'reward_correct',
      'reward_format, "tags"',
      'num_turns',
      'truncated',
      'extracted_answer',
      'token_drift_count',
      'duration_ms',
    ]);
    const rows = readRows(rollouts);
    assert.equal(records.length, rows.length);
    records.forEach((record, i) => {
      const row = rows[i]!;
      const cell = (name: string) => record[header!.indexOf(name)];
      assert.equal(record.length, header!.length);
      assert.equal(cell('_ng_task_index'), String(row._ng_task_index));
      assert.equal(cell('agent'), row.agent_ref.name);
      assert.equal(cell('termination'), row.termination!.kind);
      assert.equal(Number(cell('reward')), row.reward);
      assert.equal(cell('num_turns'), String(row.num_turns));
      assert.equal(cell('truncated'), String(row.truncated === true));
      assert.equal(cell('extracted_answer'), row.extracted_answer ?? '');
    });
    assert.equal(records[0]![header!.indexOf('extracted_answer')], 'say "3",\nthen stop');
    assert.deepEqual(
      records.map((record) => record[header!.indexOf('reward_format, "tags"')]),
      ['0.25', '', ''],
    );
  });
});
