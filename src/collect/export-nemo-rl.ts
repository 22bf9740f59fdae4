import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { ConfigError } from '../core/errors/config-error.js';
import type { Message } from '../core/message.js';
import type { ResultRow } from '../core/result-row.js';
import { readFullRow } from '../core/row-reader.js';
import { ChunkedWriter, jsonRows } from './result-files.js';
import { isZeroTurnRow } from '../core/zero-turn-row.js';

/**
 * One message of NeMo RL's `message_log`. Every message carries `generation_logprobs` and
 * `token_loss_mask`, one per token (0 where the model did not generate), because NeMo RL flattens a
 * log by concatenating each key over the messages that have it: a key missing on some messages
 * would no longer line up with `token_ids`.
 */
export interface NemoRlMessage {
  role: string;
  content: string;
  token_ids: number[];
  generation_logprobs: number[];
  /** 1 on the tokens of assistant turns the sampler generated (with logprobs), as GRPO masks them. */
  token_loss_mask: number[];
}

/** One rollout as NeMo RL trains from it (`DatumSpec`-like), with the keys to find its row again. */
export interface NemoRlRecord {
  agent_ref: { name: string };
  _ng_task_index: number;
  _ng_rollout_index: number;
  message_log: NemoRlMessage[];
  /** Tokens in the log. */
  length: number;
  /** 0 masks the rollout out of the loss (NeMo RL's `loss_multiplier`): it has nothing to train on. */
  loss_multiplier: 0 | 1;
  total_reward: number;
  reward_components?: Record<string, number>;
  truncated: boolean;
  /** The prompt alone filled the sequence: no turn, masked. */
  zero_turn?: true;
  /** The row's turns where the chat template would have rendered the history differently; masked unless `--on-drift keep`. */
  token_drift_count?: number;
}

/**
 * What becomes of a row with token drift. `mask` (the default): written with `loss_multiplier` 0, as
 * the ids a trainer re-renders would not be the ones sampled; `drop`: left out; `keep`: trained on.
 * Every written drifted row carries its `token_drift_count`, so the choice can be seen in the file.
 */
export const DRIFT_POLICIES = ['mask', 'drop', 'keep'] as const;
export type DriftPolicy = (typeof DRIFT_POLICIES)[number];

export interface ExportCounts {
  written: number;
  /** Written with `loss_multiplier` 0 (zero-turn rows and, with `mask`, drifted rows). */
  masked: number;
  zeroTurn: number;
  /** Rows with token drift: masked, dropped or kept as the drift policy says. */
  drifted: number;
}

/**
 * A result row in NeMo RL's message-log form, from gymnast's `messages` (their exact token ids) or,
 * for rows without them (agent servers, NeMo Gym's files), from the training fields on
 * `response.output` as NeMo RL's Gym postprocessing reads them. A zero-turn row is kept but masked; a
 * row with no token ids at all, an evaluation-only row, or a log with no generated token that is not
 * zero-turn, is refused.
 */
export function nemoRlRecord(row: ResultRow, where: string, onDrift: Exclude<DriftPolicy, 'drop'> = 'mask'): NemoRlRecord {
  if (row.evaluation_only)
    throw new ConfigError(
      `${where}: an evaluation-only rollout (evaluation_only: true): its policy returned text without token ids or logprobs, so there is nothing to train on; collect with a token-returning policy (vllm-completions, sglang-generate, chat-completions)`,
    );
  const drift = row.token_drift_count ?? 0;
  const zeroTurn = isZeroTurnRow(row);
  const log = row.messages?.every((message) => message.token_ids !== undefined)
    ? fromMessages(row.messages)
    : fromOutputItems(row.response.output ?? [], where);
  const trainable = log.some((message) => message.token_loss_mask.includes(1));
  if (!trainable && !zeroTurn) throw new ConfigError(`${where}: nothing to train on: no assistant turn with generated tokens`);
  return {
    agent_ref: { name: row.agent_ref.name },
    _ng_task_index: row._ng_task_index,
    _ng_rollout_index: row._ng_rollout_index,
    message_log: log,
    length: log.reduce((total, message) => total + message.token_ids.length, 0),
    loss_multiplier: trainable && (drift === 0 || onDrift === 'keep') ? 1 : 0,
    total_reward: row.reward,
    ...(row.reward_components === undefined ? {} : { reward_components: row.reward_components }),
    truncated: row.truncated === true,
    ...(zeroTurn ? { zero_turn: true as const } : {}),
    ...(drift > 0 ? { token_drift_count: drift } : {}),
  };
}

function fromMessages(messages: readonly Message[]): NemoRlMessage[] {
  return messages.map((message) => {
    const ids = message.token_ids!;
    const generated = message.role === 'assistant' && message.generation_logprobs !== undefined;
    return {
      role: message.role,
      content: message.content,
      token_ids: ids,
      generation_logprobs: generated ? message.generation_logprobs! : zeros(ids.length),
      token_loss_mask: generated ? ones(ids.length) : zeros(ids.length),
    };
  });
}

interface TrainingItem {
  prompt_token_ids?: number[];
  generation_token_ids?: number[];
  generation_log_probs?: number[];
}

/** NeMo RL's walk over output items with generation tokens: what each prompt adds, then the generation. */
function fromOutputItems(items: readonly unknown[], where: string): NemoRlMessage[] {
  const log: NemoRlMessage[] = [];
  let seen: number[] = [];
  for (const item of items as TrainingItem[]) {
    const generation = item?.generation_token_ids;
    if (!generation?.length) continue;
    const prompt = item.prompt_token_ids ?? [];
    if (prompt.length < seen.length || seen.some((id, i) => prompt[i] !== id))
      throw new ConfigError(`${where}: non-contiguous messages: a turn's prompt_token_ids do not continue the tokens before it`);
    const added = prompt.slice(seen.length);
    log.push({ role: 'user', content: '', token_ids: added, generation_logprobs: zeros(added.length), token_loss_mask: zeros(added.length) });
    log.push({
      role: 'assistant',
      content: '',
      token_ids: generation,
      generation_logprobs: item.generation_log_probs ?? zeros(generation.length),
      token_loss_mask: ones(generation.length),
    });
    seen = [...prompt, ...generation];
  }
  if (log.length === 0)
    throw new ConfigError(`${where}: nothing to train on: no messages with token ids and no response.output item with generation_token_ids`);
  return log;
}

const zeros = (length: number) => new Array<number>(length).fill(0);
const ones = (length: number) => new Array<number>(length).fill(1);

/** Every success of a rollouts file as a NeMo RL record, one JSON line each, drifted rows as `onDrift` says; the counts of what was done. */
export async function exportNemoRl(input: string, output: string, options: { onDrift?: DriftPolicy; signal?: AbortSignal } = {}): Promise<ExportCounts> {
  const { onDrift = 'mask', signal } = options;
  const counts: ExportCounts = { written: 0, masked: 0, zeroTurn: 0, drifted: 0 };
  const file = createWriteStream(output);
  try {
    const writer = new ChunkedWriter(file);
    for await (const at of jsonRows(input, signal)) {
      const read = readFullRow(at.value, at.where);
      if (read.kind === 'failure') throw new ConfigError(`${at.where}: a failed rollout (${read.row._ng_failure_class}) in a rollouts file`);
      const drifted = (read.row.token_drift_count ?? 0) > 0;
      if (drifted) counts.drifted += 1;
      if (drifted && onDrift === 'drop') continue;
      const record = nemoRlRecord(read.row, at.where, onDrift === 'keep' ? 'keep' : 'mask');
      counts.written += 1;
      if (record.loss_multiplier === 0) counts.masked += 1;
      if (record.zero_turn) counts.zeroTurn += 1;
      await writer.write(`${JSON.stringify(record)}\n`);
    }
    await writer.flush();
  } finally {
    file.end();
  }
  await finished(file);
  return counts;
}
