import { readRow } from '../core/row-reader.js';
import { jsonRows } from './result-files.js';

/**
 * A gymnast episode that never reached the model: its prompt alone filled `max_seq_len`, so it has no
 * turn and nothing to train on. Rows without gymnast's record (agent servers, NeMo Gym's files) are not.
 */
export function isZeroTurnRow(row: { num_turns?: number | undefined; turns?: readonly unknown[] | undefined }): boolean {
  return row.num_turns === 0 || row.turns?.length === 0;
}

/** How many successes in a rollouts file are zero-turn rows (streamed; errors name file:line). */
export async function countZeroTurnRows(file: string, signal?: AbortSignal): Promise<number> {
  let count = 0;
  for await (const at of jsonRows(file, signal)) {
    const read = readRow(at.value, at.where);
    if (read.kind === 'result' && isZeroTurnRow(read.row)) count += 1;
  }
  return count;
}
