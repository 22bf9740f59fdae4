import { modelCallTokens, type TrainingTokens } from '../../core/model-call-tokens.js';
import type { Message } from '../../core/message.js';
import type { ResultRow } from '../../core/result-row.js';
import { isRecord } from '../../util/is-record.js';
import { healthFinding, type HealthFinding } from './health-check.js';
import { logprobFindings } from './logprob-findings.js';

/** An item of `response.output` carrying NeMo Gym's training fields, and where it is. */
interface TrainingItem {
  at: number;
  item: Record<string, unknown>;
}

const FIELDS = ['prompt_token_ids', 'generation_token_ids', 'generation_log_probs'] as const;

/**
 * The checks of the copy of a row's tokens that NeMo RL trains on: the training fields on
 * `response.output`. A row with gymnast's messages holds every token twice; until rows store them
 * once, each call's fields must equal what the messages derive (`modelCallTokens`, the derivation
 * `collect` writes them with), and an item that differs has its own values checked too (those that
 * agree were checked on the messages). A row with only the output (an agent server's, or one whose
 * messages carry no ids) has every call's values checked, and each call's prompt must continue the
 * tokens before it, as NeMo RL asserts ("Non-contiguous messages found!").
 */
export function trainingTokenFindings(row: ResultRow): HealthFinding[] {
  const items = trainingItems(row.response.output ?? []);
  if (items.length === 0) return [];
  const messages = row.messages?.some((message) => message.token_ids !== undefined) ? row.messages : undefined;
  if (messages === undefined) return items.flatMap(({ at, item }) => itemFindings(item, at)).concat(contiguity(items));
  const calls = modelCallTokens(messages, firstSampled(messages, row.turns?.length));
  if (calls === undefined)
    return [
      healthFinding(
        'training-tokens-mismatch',
        `response.output carries training tokens for ${items.length} model call(s), the messages none (a message without token_ids, or a sampled one without generation_logprobs)`,
      ),
    ];
  if (calls.length !== items.length)
    return [
      healthFinding('training-tokens-mismatch', `response.output carries training tokens for ${items.length} model call(s), the messages ${calls.length}`),
    ];
  const findings: HealthFinding[] = [];
  for (const [turn, { at, item }] of items.entries()) {
    const difference = firstDifference(item, calls[turn]!);
    if (difference === undefined) continue;
    findings.push(healthFinding('training-tokens-mismatch', `turn ${turn}: response.output[${at}].${difference}`), ...itemFindings(item, at));
  }
  return findings;
}

/** Whether any item of the row's `response.output` carries NeMo Gym's training fields. */
export function hasTrainingFields(row: ResultRow): boolean {
  return trainingItems(row.response.output ?? []).length > 0;
}

function trainingItems(output: readonly unknown[]): TrainingItem[] {
  const items: TrainingItem[] = [];
  for (const [at, item] of output.entries()) if (isRecord(item) && FIELDS.some((field) => field in item)) items.push({ at, item });
  return items;
}

/**
 * Where the sampled assistant messages start: the last `turns` of them were sampled (all of them
 * when the row records no turns); earlier ones came with the prompt.
 */
function firstSampled(messages: readonly Message[], turns: number | undefined): number {
  const assistants = messages.flatMap((message, i) => (message.role === 'assistant' ? [i] : []));
  return assistants[turns === undefined ? 0 : Math.max(0, assistants.length - turns)] ?? messages.length;
}

/** The first field of `item` that differs from the call the messages derive, said with both values. */
function firstDifference(item: Record<string, unknown>, call: TrainingTokens): string | undefined {
  for (const field of FIELDS) {
    const found = item[field];
    const expected = call[field];
    if (!Array.isArray(found)) return `${field} is ${JSON.stringify(found) ?? 'missing'}, the messages have ${expected.length} values`;
    if (found.length !== expected.length) return `${field} holds ${found.length} values, the messages ${expected.length}`;
    const at = expected.findIndex((value, i) => found[i] !== value);
    if (at !== -1) return `${field}[${at}] is ${JSON.stringify(found[at])}, the messages' is ${expected[at]}`;
  }
  return undefined;
}

/** The values of one item NeMo RL would train on: token ids that are token ids, and sound logprobs. */
function itemFindings(item: Record<string, unknown>, at: number): HealthFinding[] {
  const where = `response.output[${at}]`;
  const malformed = (['prompt_token_ids', 'generation_token_ids'] as const).filter((field) => !isTokenIds(item[field]));
  const findings = malformed.map((field) => healthFinding('training-tokens-malformed', `${where}.${field} is not a list of token ids`));
  const generated = isTokenIds(item.generation_token_ids) ? item.generation_token_ids.length : 0;
  return [...findings, ...logprobFindings(where, 'generation_log_probs', generated, item.generation_log_probs)];
}

/** NeMo RL's walk: each call with generated tokens must see every token before it at the start of its prompt. */
function contiguity(items: readonly TrainingItem[]): HealthFinding[] {
  let seen: readonly number[] = [];
  for (const { at, item } of items) {
    const { prompt_token_ids: prompt, generation_token_ids: generation } = item;
    if (!isTokenIds(prompt) || !isTokenIds(generation) || generation.length === 0) continue;
    const broken = seen.findIndex((id, i) => prompt[i] !== id);
    if (broken !== -1)
      return [
        healthFinding(
          'training-tokens-malformed',
          `response.output[${at}].prompt_token_ids do not continue the tokens before it (from token ${broken}): NeMo RL refuses the row (Non-contiguous messages found!)`,
        ),
      ];
    seen = [...prompt, ...generation];
  }
  return [];
}

function isTokenIds(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((id) => Number.isSafeInteger(id) && id >= 0);
}
