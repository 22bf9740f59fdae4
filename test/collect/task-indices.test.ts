import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkInput, plannedRows } from '../../src/collect/collect-plan.js';
import { acceptingAgents, expandRows } from '../support/expand-rows.js';
import { RowPlanner, type PlannerOptions } from '../../src/collect/row-planner.js';

const dir = mkdtempSync(join(tmpdir(), 'gymnast-task-indices-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const question = (q: string, extra: Record<string, unknown> = {}) => JSON.stringify({ responses_create_params: { input: q }, ...extra });

let files = 0;
/** The planned (task, rollout) keys of an input file with this exact content, read as `gymnast collect` reads it. */
async function plannedKeys(content: string, options: Partial<PlannerOptions> = {}): Promise<string[]> {
  const input = join(dir, `${files++}.jsonl`);
  writeFileSync(input, content);
  const planner = new RowPlanner({ file: input, agent: 'x', agents: acceptingAgents(['x']), ...options });
  const source = { input, maxLineBytes: 1 << 20 };
  await checkInput(source, planner);
  const keys: string[] = [];
  for await (const row of plannedRows(source, planner)) keys.push(`${row._ng_task_index}:${row._ng_rollout_index}`);
  return keys;
}

// NeMo Gym's collector numbers tasks by the raw line Python reads, newline and all, and overwrites any
// index a row carries: `002 rollout_collection.py _preprocess_rows_from_config`,
// `row[TASK_INDEX_KEY_NAME] = row_to_task_idx.setdefault(row_str, len(row_to_task_idx))`.
describe("task indices as NeMo Gym's collector assigns them (002 rollout_collection.py _preprocess_rows_from_config)", () => {
  it('gives identical lines one task, whose rollouts they pool in line order', async () => {
    const a = question('a');
    assert.deepEqual(await plannedKeys(`${a}\n${question('b')}\n${a}\n`, { numRepeats: 2 }), ['0:0', '0:1', '1:0', '1:1', '0:2', '0:3']);
  });

  it('gives a last line without its newline a task of its own, apart from the identical line before it', async () => {
    const a = question('a');
    assert.deepEqual(await plannedKeys(`${a}\n${a}`), ['0:0', '1:0']);
    // Ended by a newline, the same two lines are one task.
    assert.deepEqual(await plannedKeys(`${a}\n${a}\n`), ['0:0', '0:1']);
    // CRLF and a last \r read as one newline, as Python's universal newlines read them.
    assert.deepEqual(await plannedKeys(`${a}\r\n${a}\r`), ['0:0', '0:1']);
  });

  it('tells lines apart by their text, not their JSON: the same row spelt with a space is another task', async () => {
    assert.deepEqual(await plannedKeys(`{"responses_create_params":{"input":"a"}}\n{"responses_create_params": {"input":"a"}}\n`), ['0:0', '1:0']);
  });

  it('overwrites an index the row already has, whatever it holds, numbering the row by its line', async () => {
    const text = `${question('a', { _ng_task_index: 7 })}\n${question('b')}\n${question('c', { _ng_task_index: 'seven' })}\n`;
    assert.deepEqual(await plannedKeys(text), ['0:0', '1:0', '2:0']);
    const { rows } = expandRows([{ line: 1, text: question('a', { _ng_task_index: 7, task: 'kept' }) }], { file: 'in.jsonl', agent: 'x' });
    // In the place the row had it, as a Python dict keeps a key it reassigns.
    assert.deepEqual(Object.keys(rows[0]!), ['responses_create_params', '_ng_task_index', 'task', 'agent_ref', '_ng_rollout_index']);
    assert.equal(rows[0]!._ng_task_index, 0);
  });

  it("keeps a row's own index with keepTaskIndices (NeMo Gym since #1314, for shards numbered apart), the automatic counter starting at 0 on its own", async () => {
    const text = `${question('a', { _ng_task_index: 7 })}\n${question('b')}\n`;
    assert.deepEqual(await plannedKeys(text, { keepTaskIndices: true }), ['7:0', '0:0']);
    await assert.rejects(plannedKeys(question('c', { _ng_task_index: 'seven' }), { keepTaskIndices: true }), /_ng_task_index/);
  });
});
