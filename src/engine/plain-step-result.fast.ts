// Fast path: mirrors the StepResult schema; 11× faster (docs/fast-paths.md#hand-checks); guard: test/engine/step-result-fast-path.test.ts.
import { Role } from '../core/message.js';
import type { Message } from '../core/message.js';
import type { StepResult } from '../core/step-result.js';
import { isRecord } from '../util/is-record.js';

const ROLES: ReadonlySet<string> = new Set(Role.options);

/**
 * A step result of the shape environments return (text observations, a reward, the end flags, the
 * metadata), rebuilt as the StepResult schema returns it: its fields in its order, its defaults
 * applied, other fields dropped. Anything else (tool calls, tokens on an observation, a record of
 * fields) is left to the schema: undefined. Once a turn, zod's object walk cost more than the step.
 */
export function plainStepResult(raw: unknown): StepResult | undefined {
  if (!isRecord(raw)) return undefined;
  const { observation = [], reward, reward_components, terminated, truncated = false, metadata, next_stop_strings, answer, tool_calls, fields } = raw;
  const plain =
    Array.isArray(observation) &&
    observation.every(isTextMessage) &&
    typeof reward === 'number' &&
    Number.isFinite(reward) &&
    (reward_components === undefined || isFiniteNumberRecord(reward_components)) &&
    typeof terminated === 'boolean' &&
    typeof truncated === 'boolean' &&
    (next_stop_strings === undefined || next_stop_strings === null || isStringList(next_stop_strings)) &&
    (answer === undefined || answer === null || typeof answer === 'string') &&
    tool_calls === undefined &&
    fields === undefined;
  if (!plain) return undefined;
  // Built in the schema's key order; a key the value has, even undefined, is kept as the schema keeps it.
  const result = { observation: observation.map(textMessage), reward } as StepResult;
  if (reward_components !== undefined) result.reward_components = { ...(reward_components as Record<string, number>) };
  result.terminated = terminated;
  result.truncated = truncated;
  if ('metadata' in raw) result.metadata = metadata;
  if ('next_stop_strings' in raw) result.next_stop_strings = next_stop_strings as string[] | null | undefined;
  if ('answer' in raw) result.answer = answer as string | null | undefined;
  return result;
}

/** A message of role and text, and for a tool's answer the call it answers: nothing else. */
function isTextMessage(value: unknown): boolean {
  if (!isRecord(value)) return false;
  for (const key in value) if (key !== 'role' && key !== 'content' && key !== 'tool_call_id') return false;
  return (
    typeof value.role === 'string' &&
    ROLES.has(value.role) &&
    typeof value.content === 'string' &&
    (value.tool_call_id === undefined || typeof value.tool_call_id === 'string')
  );
}

function textMessage(value: Record<string, unknown>): Message {
  const message = { role: value.role, content: value.content } as Message;
  if ('tool_call_id' in value) message.tool_call_id = value.tool_call_id as string | undefined;
  return message;
}

function isFiniteNumberRecord(value: unknown): boolean {
  if (!isRecord(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) if (!Object.hasOwn(value, key) || !Number.isFinite(value[key]) || key === '__proto__') return false;
  return true;
}

function isStringList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string') return false;
  return true;
}
