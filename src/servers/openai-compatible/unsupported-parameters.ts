import { z } from 'zod';
import { isRecord } from '../../util/is-record.js';
import { RequestRejectedError } from '../http-server/request-rejected-error.js';

/** A parameter the server reads but can serve only at the value that asks for nothing it does not do anyway. */
interface DefaultOnly {
  isDefault: (value: unknown) => boolean;
  /** Why any other value is refused, and what to send instead. */
  why: string;
}
type DefaultOnlyTable = Record<string, DefaultOnly>;

const isEmptyList = (value: unknown) => Array.isArray(value) && value.length === 0;
/** An options object whose every field is unset (null counts as unset, as OpenAI reads it). */
const setsNothing = (value: unknown) => isRecord(value) && Object.values(value).every((field) => field === null || field === undefined);
const noPenalty = 'this server applies no penalties: send 0 or leave it out';
const textOnly = 'this server answers in text only';

/**
 * Sampling controls OpenAI clients and vLLM send (completions and chat) that this server's generator
 * cannot apply: each is read (so it is never an unknown field) and accepted only at the value that asks
 * for nothing, anything else a 400 naming it, never an answer that silently ignored it.
 */
export const samplingDefaults = {
  prompt_logprobs: { isDefault: () => false, why: "this server does not score the prompt's tokens" },
  response_format: {
    isDefault: (value) => isRecord(value) && value.type === 'text',
    why: 'this server cannot constrain the output: only {"type": "text"} is served',
  },
  presence_penalty: { isDefault: (value) => value === 0, why: noPenalty },
  frequency_penalty: { isDefault: (value) => value === 0, why: noPenalty },
  repetition_penalty: { isDefault: (value) => value === 1, why: 'this server applies no penalties: send 1 or leave it out' },
  logit_bias: { isDefault: (value) => isRecord(value) && Object.keys(value).length === 0, why: 'this server cannot bias logits: send {} or leave it out' },
  min_tokens: { isDefault: (value) => value === 0, why: 'this server cannot hold off the end of sequence: send 0 or leave it out' },
  ignore_eos: { isDefault: (value) => value === false, why: 'this server always stops at the end of sequence: send false or leave it out' },
  min_p: { isDefault: (value) => value === 0, why: 'this server has no min_p filter: send 0 or leave it out' },
} satisfies DefaultOnlyTable;

/** What the chat and Responses APIs share: a request is answered now, in text, by the one model, and nothing is kept. */
const answeredNow = {
  service_tier: {
    isDefault: (value) => value === 'auto' || value === 'default',
    why: "this server has one processing tier: send 'auto' or 'default', or leave it out",
  },
  moderation: { isDefault: () => false, why: 'this server runs no moderation' },
} satisfies DefaultOnlyTable;

/** Chat's options beyond sampling, each served at OpenAI's default. */
export const chatDefaults = {
  ...answeredNow,
  store: { isDefault: (value) => value === false, why: 'this server keeps no completions: send false or leave it out' },
  modalities: { isDefault: (value) => Array.isArray(value) && value.length === 1 && value[0] === 'text', why: `${textOnly}: send ["text"] or leave it out` },
  audio: { isDefault: () => false, why: textOnly },
  prediction: { isDefault: () => false, why: 'this server does not decode against a predicted output' },
  reasoning_effort: {
    isDefault: () => false,
    why: "this server has no reasoning effort to set: a chat template's thinking switch is set with chat_template_kwargs (e.g. enable_thinking)",
  },
  verbosity: {
    isDefault: (value) => value === 'medium',
    why: "this server cannot make the model terser or wordier: send 'medium' (OpenAI's default) or leave it out",
  },
  web_search_options: { isDefault: () => false, why: 'this server searches nothing' },
  functions: { isDefault: isEmptyList, why: 'send the functions as tools (functions is the deprecated form)' },
  function_call: { isDefault: () => false, why: 'send tool_choice (function_call is the deprecated form)' },
} satisfies DefaultOnlyTable;

/** Completions' options beyond sampling. */
export const completionDefaults = {
  suffix: { isDefault: (value) => value === '', why: 'this server does not fill in the middle: send "" or leave it out' },
} satisfies DefaultOnlyTable;

/** The Responses API's options beyond sampling, each served at the value that keeps and adds nothing. */
export const responsesDefaults = {
  ...answeredNow,
  store: { isDefault: (value) => value === false, why: 'this server keeps no responses: send false or leave it out' },
  previous_response_id: { isDefault: () => false, why: 'this server keeps no responses: send the whole conversation as input' },
  conversation: { isDefault: () => false, why: 'this server keeps no conversations: send the whole conversation as input' },
  prompt: { isDefault: () => false, why: 'this server keeps no prompt templates: send the input itself' },
  background: { isDefault: (value) => value === false, why: 'this server answers within the request and keeps nothing to poll: send false or leave it out' },
  truncation: {
    isDefault: (value) => value === 'disabled',
    why: "this server does not drop input items to fit the context (an input too long is a 400): send 'disabled' or leave it out",
  },
  include: { isDefault: isEmptyList, why: 'this server adds no optional output data: send [] or leave it out' },
  context_management: { isDefault: isEmptyList, why: 'this server does not compact the context' },
  reasoning: { isDefault: setsNothing, why: 'this server has no reasoning effort or summary to set' },
  text: {
    isDefault: (value) =>
      isRecord(value) &&
      (value.format === undefined || (isRecord(value.format) && value.format.type === 'text')) &&
      (value.verbosity === undefined || value.verbosity === null || value.verbosity === 'medium'),
    why: 'this server writes plain text only: send {"format": {"type": "text"}} or leave it out',
  },
} satisfies DefaultOnlyTable;

/** The table's parameters as optional schema fields, spread into a request schema. */
export function defaultOnlyFields<T extends DefaultOnlyTable>(table: T): Record<keyof T, z.ZodOptional<z.ZodUnknown>> {
  return Object.fromEntries(Object.keys(table).map((name) => [name, z.unknown().optional()])) as Record<keyof T, z.ZodOptional<z.ZodUnknown>>;
}

/** A 400 naming the first of the table's parameters sent with a value that asks for something, the value, and why. */
export function refuseNonDefault(table: DefaultOnlyTable, request: Record<string, unknown>): void {
  for (const [name, { isDefault, why }] of Object.entries(table)) {
    const value = request[name];
    if (value === undefined || isDefault(value)) continue;
    throw new RequestRejectedError(400, `${name} ${JSON.stringify(value)} is not supported: ${why}`, { param: name, code: 'unsupported_parameter' });
  }
}
