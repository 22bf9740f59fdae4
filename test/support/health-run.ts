import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { restoreRowTokens } from '../../src/core/index.js';

const run = promisify(execFile);
export const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const arithmetic = new URL('../../examples/arithmetic.jsonl', import.meta.url).pathname;

/** A result row as the tests edit it: the fields they touch, typed; the rest kept as read. */
export interface EditableRow {
  _ng_task_index: number;
  _ng_rollout_index: number;
  reward: number;
  num_turns: number;
  messages: { role: string; content: string; token_ids: number[]; generation_logprobs?: number[] }[];
  turns: { prompt_tokens: number; generated_tokens: number; env_tokens: number; finish_reason: { unified: string; raw?: string } }[];
  response: { output: Record<string, unknown>[]; usage: { input_tokens: number; output_tokens: number; total_tokens: number } };
  [field: string]: unknown;
}

/**
 * A real `gymnast collect` run on the embedded model: examples/arithmetic.jsonl, 2 repeats (16 tasks,
 * 32 rollouts), greedy, so every run is the same run: a clean one, whatever sampling would have drawn.
 */
export async function collectArithmetic(directory = mkdtempSync(join(tmpdir(), 'gymnast-health-')), name = 'out'): Promise<string> {
  const output = join(directory, `${name}.jsonl`);
  await run(process.execPath, [bin, 'collect', '-i', arithmetic, '-o', output, '--num-repeats', '2', '--temperature', '0']);
  return output;
}

const SIDE_FILES = ['_materialized_inputs.jsonl', '_failures.jsonl', '_run.json'];

/**
 * A copy of a run (rollouts, plan, failures, run.json) in a new folder, its rollout lines passed
 * through `edit` (and its failure lines through `editFailures`). Lines are raw text, so a test can
 * write what JSON.stringify cannot (a bare NaN). Each line is given with every message's ids on it
 * (as rows were written before schema version 3, and may still be), so a test can make the messages'
 * copy of a token disagree with response.output's.
 */
export function corruptedCopy(output: string, edit: (lines: string[]) => string[], editFailures?: (lines: string[]) => string[]): string {
  const directory = mkdtempSync(join(tmpdir(), 'gymnast-health-bad-'));
  const copy = join(directory, 'out.jsonl');
  const stem = output.slice(0, -'.jsonl'.length);
  for (const suffix of SIDE_FILES) if (existsSync(`${stem}${suffix}`)) copyFileSync(`${stem}${suffix}`, join(directory, `out${suffix}`));
  const expanded = lines(output).map((text, index) => JSON.stringify(restoreRowTokens(JSON.parse(text) as Record<string, unknown>, `${output}:${index + 1}`)));
  writeFileSync(copy, joined(edit(expanded)));
  if (editFailures) writeFileSync(join(directory, 'out_failures.jsonl'), joined(editFailures(lines(join(directory, 'out_failures.jsonl')))));
  return copy;
}

export function lines(path: string): string[] {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  return text.split('\n').filter((line) => line.trim() !== '');
}

const joined = (rows: string[]) => (rows.length === 0 ? '' : `${rows.join('\n')}\n`);

/** Edits the row on line `line` (1-based) as an object. */
export function editRow(line: number, change: (row: EditableRow) => void): (rows: string[]) => string[] {
  return (rows) =>
    rows.map((text, index) => {
      if (index !== line - 1) return text;
      const row = JSON.parse(text) as EditableRow;
      change(row);
      return JSON.stringify(row);
    });
}

/** The line (1-based) of the first single-turn row: its counts are simplest to keep consistent by hand. */
export function singleTurnLine(output: string): number {
  return lines(output).findIndex((text) => (JSON.parse(text) as EditableRow).num_turns === 1) + 1;
}

/** The sampled assistant message of a row. */
export const assistant = (row: EditableRow) => row.messages.find((message) => message.role === 'assistant')!;

/** The model call's training fields on `response.output` (NeMo Gym's shape, the copy NeMo RL reads) of a single-call row. */
export const trainingItem = (row: EditableRow) =>
  row.response.output.find((item) => 'generation_token_ids' in item) as {
    prompt_token_ids: number[];
    generation_token_ids: number[];
    generation_log_probs: number[];
  };
