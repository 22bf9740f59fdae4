/**
 * Where task rows keep the answer a verifier checks against: NeMo Gym's `expected_answer`, NeMo RL's
 * `ground_truth`, and the `answer` of gymnast's arithmetic tasks. Rows carry their task's fields, so
 * any rollout of the task has them.
 */
const ANSWER_FIELDS = ['expected_answer', 'ground_truth', 'answer'] as const;

/** A task's expected answer as its row recorded it, by field name; null when the row has none. */
export interface ExpectedAnswer {
  field: string;
  value: unknown;
}

/**
 * The first of the known answer fields the row has, else its first `expected_*` field (NeMo Gym's
 * `expected_count`, `expected_call`, …); null when there is none.
 */
export function expectedAnswer(row: Readonly<Record<string, unknown>>): ExpectedAnswer | null {
  const field =
    ANSWER_FIELDS.find((name) => row[name] !== undefined && row[name] !== null) ??
    Object.keys(row).find((name) => name.startsWith('expected_') && row[name] !== null);
  return field === undefined ? null : { field, value: row[field] };
}
