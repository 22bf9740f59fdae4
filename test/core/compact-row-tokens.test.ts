import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { readHealthRow } from '../../src/collect/health/read-health-row.js';
import { compactRowTokens, readFullRow, restoreRowTokens, type Message } from '../../src/core/index.js';

type Row = { messages: Message[]; response: { output: Record<string, unknown>[] } } & Record<string, unknown>;

/** The same two multi-turn rollouts as gymnast wrote them before schema version 3 and after. */
const fixture = (name: string): Row[] =>
  readFileSync(new URL(`../fixtures/rows/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row);
const [before, after] = [fixture('v2_multi_turn.jsonl'), fixture('v3_multi_turn.jsonl')];

const calls = (row: Row) =>
  row.response.output.filter((item) => 'generation_token_ids' in item) as {
    prompt_token_ids: number[];
    generation_token_ids: number[];
    generation_log_probs: number[];
  }[];

describe('token ids stored once: compactRowTokens and restoreRowTokens', () => {
  it('store the messages of a version 2 row as version 3 stores them, and give them back', () => {
    assert.equal(before.length, 2);
    for (const [i, old] of before.entries()) {
      assert.ok(calls(old).length >= 2, 'a multi-turn rollout');
      assert.deepEqual((compactRowTokens(old) as Row).messages, after[i]!.messages);
      assert.deepEqual((restoreRowTokens(after[i]!, `v3:${i + 1}`) as Row).messages, old.messages);
      assert.deepEqual(compactRowTokens(old).response, old.response, "NeMo Gym's shape of response.output is untouched");
    }
  });

  it('keep every id on the messages when response.output could not give one back exactly', () => {
    const edits: [string, (row: Row) => void][] = [
      ['a generated id', (row) => calls(row)[0]!.generation_token_ids[0]!++],
      ['a logprob', (row) => (calls(row)[1]!.generation_log_probs[0]! -= 1)],
      ['a prompt id of an earlier message', (row) => calls(row).at(-1)!.prompt_token_ids[2]!++],
      ['a call too few', (row) => delete (calls(row)[0] as Record<string, unknown>).generation_token_ids],
      ['a message without ids', (row) => delete row.messages[0]!.token_ids],
    ];
    for (const [name, edit] of edits) {
      const row = structuredClone(before[0]!);
      edit(row);
      assert.equal(compactRowTokens(row), row, name);
    }
    const noTrainingFields = structuredClone(before[0]!);
    for (const item of noTrainingFields.response.output) delete item.generation_log_probs;
    assert.equal(compactRowTokens(noTrainingFields), noTrainingFields, 'a backend without logprobs: nothing to store them on');
  });

  it('name the message whose ids a version 3 row cannot give back, a health finding rather than the end of the report', () => {
    const broken = structuredClone(after[0]!);
    calls(broken).at(-1)!.prompt_token_ids.pop();
    assert.throws(() => readFullRow(broken, 'out.jsonl:4'), { kind: 'invalid-row', message: /^out\.jsonl:4: messages\.\d+\.token_count: \d+ tokens at \d+ / });
    const read = readHealthRow(broken, 'out.jsonl:4');
    assert.equal(read.ok, false);
    if (!read.ok) assert.equal(read.finding.check, 'training-tokens-malformed');
    const negative = structuredClone(after[0]!);
    (negative.messages[0] as unknown as { token_count: number }).token_count = -1;
    assert.throws(() => readFullRow(negative, 'out.jsonl:5'), {
      kind: 'invalid-row',
      message: /^out\.jsonl:5: messages\.0\.token_count: expected a count of tokens, got -1/,
    });
  });
});
