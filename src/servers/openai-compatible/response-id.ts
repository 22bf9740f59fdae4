import { randomBytes } from 'node:crypto';

/**
 * A response id unique per response (`cmpl-…`, `chatcmpl-…`), as OpenAI and vLLM give: clients and
 * logs that key on the id (the AI SDK's response metadata, tracing) would merge answers sharing one.
 */
export function responseId(prefix: 'cmpl' | 'chatcmpl'): string {
  return `${prefix}-${randomBytes(12).toString('hex')}`;
}

/** The Responses API's ids, unique per response or item: `resp_…`, `msg_…`, `fc_…`. */
export function itemId(prefix: 'resp' | 'msg' | 'fc'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** `created`: the unix time in whole seconds, as OpenAI gives it. */
export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
