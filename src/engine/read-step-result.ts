import { Role } from '../core/message.js';
import { StepResult } from '../core/step-result.js';
import { isRecord } from '../util/is-record.js';

/**
 * What an environment's step returned, as the `StepResult` schema reads it, or zod's issues. The shape
 * most steps return (text observations, a reward, the flags, state, an answer) is confirmed by hand and
 * rebuilt with the schema's fields in its order and its defaults; anything else (reward components,
 * tool calls, reported fields, messages with more than a role and text) goes through the schema, which
 * names what is wrong. Once a turn, zod's walk of the observation cost more than the check.
 */
export function readStepResult(raw: unknown): ReturnType<typeof StepResult.safeParse> {
  const read = plainStep(raw);
  return read ? { success: true, data: read } : StepResult.safeParse(raw);
}

const ROLES: ReadonlySet<unknown> = new Set(Role.options);
/** The fields read by hand; a step with any other field present goes to the schema. */
const PLAIN_FIELDS: ReadonlySet<string> = new Set(['observation', 'reward', 'terminated', 'truncated', 'metadata', 'next_stop_strings', 'answer']);

function plainStep(raw: unknown): StepResult | undefined {
  if (!isRecord(raw)) return undefined;
  for (const key in raw) if (!PLAIN_FIELDS.has(key) && raw[key] !== undefined) return undefined;
  const { observation = [], reward, terminated, truncated = false, next_stop_strings: stops, answer } = raw;
  const plain =
    Array.isArray(observation) &&
    observation.every(isPlainMessage) &&
    typeof reward === 'number' &&
    Number.isFinite(reward) &&
    typeof terminated === 'boolean' &&
    typeof truncated === 'boolean' &&
    (stops === undefined || stops === null || (Array.isArray(stops) && stops.every((stop) => typeof stop === 'string'))) &&
    (answer === undefined || answer === null || typeof answer === 'string');
  if (!plain) return undefined;
  return {
    observation: observation.map((message: PlainMessage) => ({ role: message.role, content: message.content })),
    reward,
    terminated,
    truncated,
    ...('metadata' in raw ? { metadata: raw.metadata } : {}),
    ...(stops === undefined ? {} : { next_stop_strings: stops === null ? null : [...stops] }),
    ...(answer === undefined ? {} : { answer }),
  };
}

interface PlainMessage {
  role: Role;
  content: string;
}

/** A message of a role and its text, nothing else set (the schema keeps only its own fields and checks those). */
function isPlainMessage(value: unknown): value is PlainMessage {
  if (!isRecord(value) || !ROLES.has(value.role) || typeof value.content !== 'string') return false;
  for (const key in value) if (key !== 'role' && key !== 'content' && value[key] !== undefined) return false;
  return true;
}
