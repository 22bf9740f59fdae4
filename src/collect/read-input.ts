import { readJsonLines } from '../util/json-lines.js';
import { DatasetRow } from './dataset-row.js';
import type { SourceRow } from './expand-rows.js';
import type { RowIssue } from './row-error.js';

export interface InputRows {
  sources: SourceRow[];
  issues: RowIssue[];
}

/** Reads and validates every row (the first `limit` lines), collecting every bad line rather than stopping at the first. */
export async function readInputRows(file: string, options: { limit?: number; signal?: AbortSignal } = {}): Promise<InputRows> {
  const sources: SourceRow[] = [];
  const issues: RowIssue[] = [];
  for await (const { line, text } of readJsonLines(file, options.signal)) {
    if (options.limit !== undefined && line > options.limit) break;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      issues.push({ file, line, field: '', message: `not valid JSON (${(error as Error).message})` });
      continue;
    }
    const parsed = DatasetRow.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) issues.push({ file, line, field: issue.path.join('.'), message: issue.message });
      continue;
    }
    sources.push({ line, text, row: parsed.data });
  }
  return { sources, issues };
}
