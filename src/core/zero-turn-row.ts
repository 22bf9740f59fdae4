/**
 * A rollout that never reached the model: its prompt alone filled `max_seq_len` (termination
 * `prompt-too-long`; rows written before that kind existed ended as `max-seq-len` with no turn). No
 * verifier saw it, so its reward is no score: metrics count it apart and average over the others.
 * Rows without gymnast's record (agent servers, NeMo Gym's files) are never zero-turn.
 */
export function isZeroTurnRow(row: { num_turns?: number | undefined; turns?: readonly unknown[] | undefined }): boolean {
  return row.num_turns === 0 || row.turns?.length === 0;
}
