import { isRecord } from '../../util/is-record.js';
import type { Fault } from './faults.js';

type CorruptToken = Extract<Fault, { kind: 'corrupt-token' }>;

/**
 * A generating route's answer with one sampled token reported as `fault` says, wherever the API puts
 * it: completions' and chat's `token_ids` and logprobs (their `token_id:N` labels too), SGLang's
 * `output_ids` and `output_token_logprobs`. Other answers come back as they were.
 */
export function withCorruptToken(body: unknown, fault: CorruptToken): unknown {
  if (!isRecord(body)) return body;
  if (Array.isArray(body.choices))
    return { ...body, choices: body.choices.map((choice: unknown) => (isRecord(choice) ? corruptChoice(choice, fault) : choice)) };
  if (Array.isArray(body.output_ids) && isRecord(body.meta_info)) return corruptGenerate(body, body.output_ids, body.meta_info, fault);
  return body;
}

function corruptChoice(choice: Record<string, unknown>, fault: CorruptToken): Record<string, unknown> {
  if (!Array.isArray(choice.token_ids)) return choice;
  const at = position(choice.token_ids, fault);
  const logprobs = choice.logprobs;
  const corrupted: Record<string, unknown> = { ...choice, token_ids: replaced(choice.token_ids, at, fault.id) };
  if (isRecord(logprobs) && Array.isArray(logprobs.token_logprobs)) {
    corrupted.logprobs = {
      ...logprobs,
      token_logprobs: replaced(logprobs.token_logprobs, at, fault.logprob),
      ...(Array.isArray(logprobs.tokens) ? { tokens: replaced(logprobs.tokens, at, label(logprobs.tokens[at], fault.id)) } : {}),
    };
  }
  if (isRecord(logprobs) && Array.isArray(logprobs.content)) {
    const entries = logprobs.content as Record<string, unknown>[];
    corrupted.logprobs = {
      ...logprobs,
      content: entries.map((entry, index) =>
        index === at ? { ...entry, token: label(entry.token, fault.id), logprob: fault.logprob ?? entry.logprob } : entry,
      ),
    };
  }
  return corrupted;
}

function corruptGenerate(body: Record<string, unknown>, outputIds: unknown[], meta: Record<string, unknown>, fault: CorruptToken): Record<string, unknown> {
  const at = position(outputIds, fault);
  const entries = Array.isArray(meta.output_token_logprobs) ? (meta.output_token_logprobs as unknown[][]) : undefined;
  const corruptedEntries = entries?.map((entry, index) => (index === at ? [fault.logprob ?? entry[0], fault.id ?? entry[1], entry[2]] : entry));
  return {
    ...body,
    output_ids: replaced(outputIds, at, fault.id),
    meta_info: { ...meta, ...(corruptedEntries ? { output_token_logprobs: corruptedEntries } : {}) },
  };
}

const position = (ids: readonly unknown[], fault: CorruptToken) => Math.min(fault.at ?? 0, ids.length - 1);

function replaced(values: readonly unknown[], at: number, value: unknown): unknown[] {
  return value === undefined ? [...values] : values.map((item, index) => (index === at ? value : item));
}

/** A `token_id:N` label names the new id; a text label is left (the text is left too). */
function label(token: unknown, id: number | undefined): unknown {
  return id !== undefined && typeof token === 'string' && token.startsWith('token_id:') ? `token_id:${id}` : token;
}
