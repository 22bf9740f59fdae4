import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { ChunkedWriter } from './result-files.js';
import { type RolloutSummary, rewardComponentNames, rolloutSummary, successRows } from './rollout-summary.js';

type Cell = string | number | boolean | null;

/** A field as RFC 4180 writes it: quoted (inner quotes doubled) when it holds a comma, a quote or a line break; null is empty. */
export function csvField(value: Cell): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (cells: readonly Cell[]) => `${cells.map(csvField).join(',')}\r\n`;

const FIXED = ['_ng_task_index', '_ng_rollout_index', 'agent', 'termination', 'reward'] as const;
const TRAILING = ['num_turns', 'truncated', 'extracted_answer', 'token_drift_count', 'duration_ms'] as const;

/** The CSV header: the keys and reward, one `reward_<name>` column per reward component, then the rest of the summary. */
export const csvHeader = (components: readonly string[]) => [...FIXED, ...components.map((name) => `reward_${name}`), ...TRAILING];

function csvCells(summary: RolloutSummary, components: readonly string[]): Cell[] {
  return [...FIXED.map((key) => summary[key]), ...components.map((name) => summary.reward_components[name] ?? null), ...TRAILING.map((key) => summary[key])];
}

/** Every success of a rollouts file as one CSV record (RFC 4180, CRLF line ends) for spreadsheets: keys, agent, termination, rewards, turns; no token arrays. */
export async function exportCsv(input: string, output: string, options: { signal?: AbortSignal } = {}): Promise<{ written: number }> {
  const components = await rewardComponentNames(input, options.signal);
  const file = createWriteStream(output);
  let written = 0;
  try {
    const writer = new ChunkedWriter(file);
    await writer.write(csvLine(csvHeader(components)));
    for await (const { row } of successRows(input, options.signal)) {
      await writer.write(csvLine(csvCells(rolloutSummary(row), components)));
      written += 1;
    }
    await writer.flush();
  } finally {
    file.end();
  }
  await finished(file);
  return { written };
}
