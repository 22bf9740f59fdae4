import { z } from 'zod';
import { AgentRef } from './agent-ref.js';
import { FailureClass } from './failure-class.js';
import { Message } from './message.js';
import { RecordedError } from './recorded-error.js';
import { SamplingParams } from './sampling-params.js';
import { Termination } from './termination.js';
import { TurnRecord } from './turn-record.js';

/**
 * The version of the rows `gymnast collect` writes (results and failures). Rows without a
 * `schema_version` are version 1: gymnast 0.1's rows and NeMo Gym's own. Version 3 stores each token
 * id once: the messages' ids up to the last model call are left to `response.output`'s training
 * fields (`compactRowTokens`), and read back from them (`readFullRow`). Bumped on any change a reader
 * must know about; every version keeps a fixture in test/fixtures/rows and a reader test.
 */
export const ROW_SCHEMA_VERSION = 3 as const;

/** The keys that name one planned rollout, exactly as NeMo Gym spells them. */
export const RolloutKeys = z.object({
  _ng_task_index: z.number().int().nonnegative(),
  _ng_rollout_index: z.number().int().nonnegative(),
  /** Stamped on retries only (attempt n > 0), as NeMo Gym does. */
  _ng_attempt_index: z.number().int().positive().optional(),
});
export type RolloutKeys = z.infer<typeof RolloutKeys>;

/**
 * One planned rollout, as written to `<stem>_materialized_inputs.jsonl`: the Responses-API request,
 * the agent, the keys, and every task field of the input row (`expected_answer`, `question`, …).
 */
export const MaterializedRow = z.looseObject({
  responses_create_params: z.looseObject({}),
  agent_ref: AgentRef,
  ...RolloutKeys.shape,
});
export type MaterializedRow = z.infer<typeof MaterializedRow>;

/** The numbers of `response.usage` that NeMo Gym aggregates (its `*_details` objects are kept, not read). */
export const ResponseUsage = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  total_tokens: z.number().optional(),
});

/** A Responses-API response: gymnast writes `output` and `usage`; agent servers send the whole object. */
export const RowResponse = z.looseObject({
  output: z.array(z.unknown()).optional(),
  usage: ResponseUsage.nullable().optional(),
});

/**
 * What gymnast's own episode loop adds to a row: the exact record (messages with token ids and
 * logprobs, turns, termination) and NeMo Gym's derived fields. Absent on rows from agent servers.
 */
const EpisodeFields = {
  /** Named reward components; they add up to `reward` when the environment names them. */
  reward_components: z.record(z.string(), z.number()).optional(),
  /** The environment ended the episode on its last step. */
  terminated: z.boolean().optional(),
  /** The environment or a limit (sequence, tokens, turns) cut the episode short. */
  truncated: z.boolean().optional(),
  num_turns: z.number().int().nonnegative().optional(),
  /** The last answer the environment extracted (for majority@k); null when it found none. */
  extracted_answer: z.string().nullable().optional(),
  token_drift_count: z.number().int().nonnegative().optional(),
  /** Turns whose prompt the server rendered and did not return: not known to be drift-free. Absent when no server rendered a prompt. */
  drift_unchecked: z.number().int().nonnegative().optional(),
  has_training_tokens: z.boolean().optional(),
  /** The policy returned text, no token ids (`--policy openai`): good for scoring, never for training. */
  evaluation_only: z.literal(true).optional(),
  termination: Termination.optional(),
  messages: z.array(Message).optional(),
  turns: z.array(TurnRecord).optional(),
  /** NeMo RL's final `extra_env_info`: the state before the step that ended the episode (see `RolloutRecord`). */
  env_metadata: z.unknown().optional(),
  /** What the step that ended the episode returned as metadata; absent when it returned none. */
  terminal_env_metadata: z.unknown().optional(),
  sampling: SamplingParams.optional(),
};

const rowBase = {
  schema_version: z.literal(ROW_SCHEMA_VERSION),
  ...MaterializedRow.shape,
  /** Wall time of the rollout; null only in rows read from version 1, which did not record it. */
  duration_ms: z.number().nonnegative().nullable(),
  /** When the rollout started, in ms since the epoch; absent in rows written before gymnast recorded it, and in NeMo Gym's. */
  started_at: z.number().nonnegative().optional(),
  response: RowResponse.optional(),
  ...EpisodeFields,
};

/** A successful rollout: its reward is real. NeMo Gym's result row plus gymnast's token fields. */
export const ResultRow = z.looseObject({
  ...rowBase,
  response: RowResponse,
  reward: z.number(),
});
export type ResultRow = z.infer<typeof ResultRow>;

/** A rollout that could not finish: in the failure sidecar, never with a reward. */
export const FailureRow = z.looseObject({
  ...rowBase,
  _ng_failure_class: FailureClass,
  /** The same attempt would fail the same way again (token drift, a request the server rejects): never retried. */
  _ng_failure_terminal: z.boolean().optional(),
  /** NeMo Gym's own class name, when the failure came from a NeMo Gym server or file in its words. */
  nemo_gym_failure_class: z.string().optional(),
  /** Absent only in rows read from NeMo Gym's own sidecars, which record their errors their own way. */
  error: RecordedError.optional(),
});
export type FailureRow = z.infer<typeof FailureRow>;

/** The key fields a resume needs of either kind of row (and `num_turns`, to tell an unscored success). */
export const RowKeys = z.looseObject({
  ...RolloutKeys.shape,
  _ng_failure_class: FailureClass.optional(),
  _ng_failure_terminal: z.boolean().optional(),
  num_turns: EpisodeFields.num_turns,
});
export type RowKeys = z.infer<typeof RowKeys>;
