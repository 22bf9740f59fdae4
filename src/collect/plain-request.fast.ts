// Fast path: mirrors the RequestFields and EpisodeTask schemas; 69× faster (docs/fast-paths.md#hand-checks); guard: test/collect/input-row-fast-path.test.ts.
import { isOwnRecord } from '../util/is-record.js';
import { extraBodyObject, type RequestFields } from './request-fields.js';

/**
 * The request itself when it has the common plain shape: text or plain messages (`{role, content}`
 * with text content) as input, flat function tools, sampling fields in range, and seeds (if any, at
 * the top or in `metadata.extra_body`) that are safe whole numbers. Such a request passes `RequestFields`, and the task made of it passes
 * `EpisodeTask` unchanged, so neither schema needs to walk it: read once per row when the input is
 * checked and once per rollout, they were most of a small row's cost. Undefined for anything else,
 * which the schemas read (and word the problems of).
 */
export function plainRequest(value: unknown): RequestFields | undefined {
  if (!isOwnRecord(value)) return undefined;
  const { input, tools, temperature, top_p: topP, max_output_tokens: maxTokens, seed, metadata } = value;
  const plain =
    (input === undefined || typeof input === 'string' || (Array.isArray(input) && input.every(isPlainMessage))) &&
    (tools === undefined || (Array.isArray(tools) && tools.every(isPlainTool))) &&
    (temperature === undefined || (isNumber(temperature) && temperature >= 0)) &&
    (topP === undefined || (isNumber(topP) && topP > 0 && topP <= 1)) &&
    (maxTokens === undefined || (Number.isSafeInteger(maxTokens) && (maxTokens as number) > 0)) &&
    (seed === undefined || Number.isSafeInteger(seed)) &&
    (metadata === undefined || metadata === null || (isOwnRecord(metadata) && isPlainExtraBody(metadata.extra_body)));
  return plain ? (value as RequestFields) : undefined;
}

const MESSAGE_ROLES: ReadonlySet<unknown> = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

function isPlainMessage(item: unknown): boolean {
  return isOwnRecord(item) && (item.type === undefined || item.type === 'message') && MESSAGE_ROLES.has(item.role) && typeof item.content === 'string';
}

function isPlainTool(tool: unknown): boolean {
  if (!isOwnRecord(tool)) return false;
  const { description, parameters, strict } = tool;
  return (
    tool.type === 'function' &&
    typeof tool.name === 'string' &&
    (description === undefined || typeof description === 'string') &&
    (parameters === undefined || isOwnRecord(parameters)) &&
    (strict === undefined || typeof strict === 'boolean')
  );
}

function isPlainExtraBody(text: unknown): boolean {
  if (text === undefined) return true;
  if (typeof text !== 'string') return false;
  const body = extraBodyObject(text);
  return body !== undefined && (body.seed === undefined || Number.isSafeInteger(body.seed));
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
