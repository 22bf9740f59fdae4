import type { TokenDecoder } from '../../core/token-decoder.js';
import type { Message } from '../../core/message.js';
import type { ResultRow } from '../../core/result-row.js';
import { isZeroTurnRow } from '../../core/zero-turn-row.js';
import { isRecord } from '../../util/is-record.js';
import { healthFinding, type HealthFinding } from './health-check.js';
import { logprobFindings } from './logprob-findings.js';
import { hasTrainingFields, trainingTokenFindings } from './training-token-findings.js';

/** `answers`: the row's sampled assistant messages (`sampled`), found once for every check. */
type RolloutCheck = (row: ResultRow, decoder: TokenDecoder | undefined, answers: readonly SampledMessage[]) => HealthFinding[];

interface SampledMessage {
  message: Message;
  turn: number;
}

/**
 * The findings of one successful rollout, from the row alone (keys and tasks are checked across rows
 * by `RunKeysHealth`). Without a `decoder` the decode and vocabulary checks are skipped; the caller says so once.
 */
export function rolloutFindings(row: ResultRow, decoder?: TokenDecoder): HealthFinding[] {
  const answers = sampled(row);
  const findings: HealthFinding[] = [];
  for (const check of ROLLOUT_CHECKS) findings.push(...check(row, decoder, answers));
  return findings;
}

/**
 * The sampled assistant messages, each with its turn: the last one per turn, since assistant messages
 * before them came with the prompt (a few-shot history) and were never sampled.
 */
function sampled(row: ResultRow): SampledMessage[] {
  const assistants = (row.messages ?? []).filter((message) => message.role === 'assistant');
  const prompted = row.turns === undefined ? 0 : Math.max(0, assistants.length - row.turns.length);
  return assistants.slice(prompted).map((message, turn) => ({ message, turn }));
}

/** True when the row has gymnast's token record; rows from agent servers have only `response`. */
const hasTokens = (row: ResultRow) =>
  row.messages !== undefined && row.has_training_tokens !== false && row.messages.some((message) => message.token_ids !== undefined);

/**
 * An evaluation-only row has no token ids by design: its verdict says so, this warning would repeat it.
 * A row whose only tokens are NeMo Gym's training fields on `response.output` has those checked.
 */
const noTokenRecord: RolloutCheck = (row) =>
  hasTokens(row) || row.evaluation_only || hasTrainingFields(row)
    ? []
    : [healthFinding('no-token-record', 'no token ids recorded: the token and logprob checks cannot run on this rollout')];

/** A prompt that left no room to generate is its own finding: the model was never asked, so it did not fail to answer. */
const noAssistantTurn: RolloutCheck = (row, _decoder, answers) => {
  if (isZeroTurnRow(row))
    return [healthFinding('prompt-too-long', `the prompt alone filled max_seq_len (${row.termination?.detail ?? 'no turn was run'}): not scored`)];
  const answered = row.messages !== undefined ? answers.length > 0 : (row.response.output ?? []).some(isModelOutput);
  return answered ? [] : [healthFinding('no-assistant-turn', 'no assistant turn: the model never answered')];
};

/** A Responses-API output item the model produced (a message, a tool call or reasoning). */
function isModelOutput(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  const { role, type } = item as { role?: unknown; type?: unknown };
  return role === 'assistant' || type === 'function_call' || type === 'reasoning';
}

const emptyGeneration: RolloutCheck = (row, _decoder, answers) => {
  const empty = new Set<number>();
  for (const { message, turn } of answers) if (message.token_ids?.length === 0) empty.add(turn);
  for (const [turn, record] of (row.turns ?? []).entries()) if (record.generated_tokens === 0) empty.add(turn);
  if (empty.size === 0) return [];
  return [healthFinding('empty-generation', `turn ${[...empty].sort((a, b) => a - b).join(', ')}: the model generated no tokens`)];
};

/**
 * The sequence is the messages' token ids laid end to end (NeMo RL's flat message invariant), so the
 * last turn's prompt + generated + observation tokens is their sum, and each assistant message holds
 * exactly its turn's generated tokens.
 */
const tokenCounts: RolloutCheck = (row, _decoder, answers) => {
  const turns = row.turns ?? [];
  const messages = row.messages ?? [];
  if (!hasTokens(row) || turns.length === 0) return [];
  const problems: string[] = [];
  const onSequence = messages.reduce((sum, message) => sum + (message.token_ids?.length ?? 0), 0);
  const last = turns.at(-1)!;
  const counted = last.prompt_tokens + last.generated_tokens + last.env_tokens;
  if (onSequence !== counted)
    problems.push(
      `the messages hold ${onSequence} token ids, the last turn counts ${counted} (prompt ${last.prompt_tokens} + generated ${last.generated_tokens} + observation ${last.env_tokens})`,
    );
  for (const { message, turn } of answers) {
    const generated = turns[turn]?.generated_tokens;
    const ids = message.token_ids?.length;
    if (generated !== undefined && ids !== undefined && ids !== generated)
      problems.push(`turn ${turn}: the assistant message holds ${ids} token ids, the turn generated ${generated}`);
  }
  if (answers.length < turns.length) problems.push(`${answers.length} assistant messages for ${turns.length} turns`);
  return problems.map((problem) => healthFinding('token-count-mismatch', problem));
};

/** NeMo Gym sums usage over the model calls: input over each turn's prompt, output over its generation. */
const usageCounts: RolloutCheck = (row) => {
  const usage = row.response.usage;
  const turns = row.turns ?? [];
  if (!usage || turns.length === 0) return [];
  const input = turns.reduce((sum, turn) => sum + turn.prompt_tokens, 0);
  const output = turns.reduce((sum, turn) => sum + turn.generated_tokens, 0);
  const problems: string[] = [];
  if (usage.input_tokens !== undefined && usage.input_tokens !== input)
    problems.push(`usage.input_tokens is ${usage.input_tokens}, the turns' prompts add up to ${input}`);
  if (usage.output_tokens !== undefined && usage.output_tokens !== output)
    problems.push(`usage.output_tokens is ${usage.output_tokens}, the turns generated ${output}`);
  if (
    usage.total_tokens !== undefined &&
    usage.input_tokens !== undefined &&
    usage.output_tokens !== undefined &&
    usage.total_tokens !== usage.input_tokens + usage.output_tokens
  ) {
    problems.push(`usage.total_tokens is ${usage.total_tokens}, not input + output (${usage.input_tokens + usage.output_tokens})`);
  }
  return problems.map((problem) => healthFinding('usage-mismatch', problem));
};

/**
 * The sampled ids must decode to the text recorded for the turn. Templates wrap the text (an end of
 * turn token, `<think>` around reasoning), so the decoded text must contain it rather than equal it
 * (an empty or blank text, as beside a tool call, is contained in any).
 */
const decodesToText: RolloutCheck = (_row, decoder, answers) => {
  if (!decoder) return [];
  const findings: HealthFinding[] = [];
  for (const { message, turn } of answers) {
    if (!message.token_ids || message.token_ids.length === 0) continue;
    const decoded = decoder.decode(message.token_ids);
    for (const text of [message.content, message.reasoning_content ?? '']) {
      if (decoded.includes(text.trim())) continue;
      findings.push(
        healthFinding(
          'token-text-mismatch',
          `turn ${turn}: the token ids decode to ${JSON.stringify(clip(decoded))}, the message says ${JSON.stringify(clip(text))}`,
        ),
      );
      break;
    }
  }
  return findings;
};

/**
 * Every token id of the row, in the messages and in the training fields on `response.output`, within
 * the decoder's vocabulary. gymnast checks each reply of its own policy as it comes; rows an agent
 * server sampled were checked by no one. Each field with an id outside it is named once, by its first.
 */
const vocabulary: RolloutCheck = (row, decoder) => {
  const size = decoder?.vocabSize;
  if (size === undefined) return [];
  const fields: [string, unknown][] = (row.messages ?? []).map((message, index) => [`messages[${index}].token_ids`, message.token_ids]);
  for (const [at, item] of (row.response.output ?? []).entries()) {
    if (!isRecord(item)) continue;
    for (const field of ['prompt_token_ids', 'generation_token_ids']) if (field in item) fields.push([`response.output[${at}].${field}`, item[field]]);
  }
  const findings: HealthFinding[] = [];
  for (const [where, ids] of fields) {
    if (!Array.isArray(ids)) continue;
    const outside = ids.findIndex((id) => typeof id === 'number' && id >= size);
    if (outside !== -1)
      findings.push(healthFinding('token-id-out-of-vocabulary', `${where}[${outside}] = ${ids[outside]} is outside the vocabulary [0, ${size})`));
  }
  return findings;
};

const logprobs: RolloutCheck = (row, _decoder, answers) => {
  if (!hasTokens(row)) return [];
  return answers.flatMap(({ message, turn }) =>
    logprobFindings(`turn ${turn}`, 'generation_logprobs', message.token_ids?.length ?? 0, message.generation_logprobs),
  );
};

const runaway: RolloutCheck = (row) => {
  const cut = (row.turns ?? []).flatMap((turn, index) => (turn.finish_reason.unified === 'length' ? [index] : []));
  if (cut.length === 0 && row.termination?.kind !== 'max-tokens') return [];
  const limit = row.sampling?.max_tokens === undefined ? 'max_tokens' : `max_tokens (${row.sampling.max_tokens})`;
  const where = cut.length > 0 ? `turn ${cut.join(', ')}` : 'the episode (termination max-tokens)';
  return [healthFinding('runaway-generation', `${where}: the generation filled ${limit}`)];
};

const trainingTokens: RolloutCheck = (row) => trainingTokenFindings(row);

const drift: RolloutCheck = (row) =>
  (row.token_drift_count ?? 0) > 0
    ? [healthFinding('token-drift', `${row.token_drift_count} turn(s) where the template would have rendered the history differently`)]
    : [];

/** Only a checked turn is drift-free. An evaluation-only row is never trained on: its verdict already says more than this would. */
const driftUnchecked: RolloutCheck = (row) =>
  row.drift_unchecked && !row.evaluation_only
    ? [healthFinding('drift-unchecked', `${row.drift_unchecked} turn(s) whose prompt the server rendered and did not return: not known to be drift-free`)]
    : [];

const ROLLOUT_CHECKS: readonly RolloutCheck[] = [
  noTokenRecord,
  noAssistantTurn,
  emptyGeneration,
  tokenCounts,
  usageCounts,
  vocabulary,
  decodesToText,
  logprobs,
  trainingTokens,
  runaway,
  drift,
  driftUnchecked,
];

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
