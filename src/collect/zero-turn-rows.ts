import { isZeroTurnRow } from '../core/zero-turn-row.js';
import { readRow } from '../core/row-reader.js';
import { jsonRows } from './result-files.js';

/** How many successes in a rollouts file are zero-turn rows (streamed; errors name file:line). */
export async function countZeroTurnRows(file: string, signal?: AbortSignal): Promise<number> {
  let count = 0;
  for await (const at of jsonRows(file, signal)) {
    const read = readRow(at.value, at.where);
    if (read.kind === 'result' && isZeroTurnRow(read.row)) count += 1;
  }
  return count;
}
