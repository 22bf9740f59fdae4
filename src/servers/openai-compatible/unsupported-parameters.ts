import { z } from 'zod';
import { RequestRejectedError } from '../http/request-rejected-error.js';

/**
 * Parameters OpenAI clients and vLLM accept that this server's generator cannot honour. Each is read
 * (so it is never an unknown field) and accepted only at the value that asks for nothing: anything
 * else is a 400 naming it, never an answer that silently ignored it.
 */
const refused = {
  prompt_logprobs: { isDefault: (value: unknown) => value === null, why: "this server does not score the prompt's tokens" },
  response_format: { isDefault: (value: unknown) => typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'text', why: 'this server cannot constrain the output: only {"type": "text"} is served' },
  presence_penalty: { isDefault: (value: unknown) => value === 0, why: 'this server applies no penalties: send 0 or leave it out' },
  frequency_penalty: { isDefault: (value: unknown) => value === 0, why: 'this server applies no penalties: send 0 or leave it out' },
  repetition_penalty: { isDefault: (value: unknown) => value === 1, why: 'this server applies no penalties: send 1 or leave it out' },
  logit_bias: { isDefault: (value: unknown) => value === null || (typeof value === 'object' && Object.keys(value).length === 0), why: 'this server cannot bias logits: send {} or leave it out' },
  min_tokens: { isDefault: (value: unknown) => value === 0, why: 'this server cannot hold off the end of sequence: send 0 or leave it out' },
  ignore_eos: { isDefault: (value: unknown) => value === false, why: 'this server always stops at the end of sequence: send false or leave it out' },
  min_p: { isDefault: (value: unknown) => value === 0, why: 'this server has no min_p filter: send 0 or leave it out' },
} as const;

/** The refused parameters as optional schema fields, spread into a request schema. */
export const RefusedParameters = Object.fromEntries(Object.keys(refused).map((name) => [name, z.unknown().optional()])) as Record<keyof typeof refused, z.ZodOptional<z.ZodUnknown>>;

/** A 400 naming the first refused parameter sent with a value that asks for something. */
export function refuseUnsupported(request: Partial<Record<keyof typeof refused, unknown>>): void {
  for (const [name, { isDefault, why }] of Object.entries(refused)) {
    const value = request[name as keyof typeof refused];
    if (value === undefined || isDefault(value)) continue;
    throw new RequestRejectedError(400, `${name} ${JSON.stringify(value)} is not supported: ${why}`, { param: name, code: 'unsupported_parameter' });
  }
}
