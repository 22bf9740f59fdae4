import { isRecord } from '../util/is-record.js';
import { valueDigest } from '../util/value-digest.js';

/** What the Responses API's parse adds to a planned input when an agent echoes it back (`EasyInputMessage.type`, `input_image.detail`). */
const ECHOED_DEFAULTS = new Map<string, unknown>([
  ['type', 'message'],
  ['detail', 'auto'],
]);

/**
 * A row's prompt (its `responses_create_params`: the instructions, then each input item) as digests
 * of its prefixes: `[0]` the empty prompt, the last the whole of it. A stored rollout echoes its
 * planned prompt with the parse's defaults and nulls filled in, and an agent that plays several
 * turns (NeMo Gym's gymnasium agents) appends them to the input: the planned prompt is then one of
 * the rollout's prefixes, found by digest whatever the rollout's length.
 */
export function promptPrefixes(params: unknown): string[] {
  const digests = [valueDigest(null)];
  if (!isRecord(params)) return digests;
  const { instructions, input } = params;
  const leading = typeof instructions === 'string' && instructions !== '' ? [{ instructions }] : [];
  // The Responses API takes a string input as one user message; an empty one is no prompt.
  const items = Array.isArray(input) ? input : input === undefined || input === null || input === '' ? [] : [input];
  for (const item of [...leading, ...items]) digests.push(valueDigest(withoutEchoedDefaults(item), digests.at(-1)));
  return digests;
}

function withoutEchoedDefaults(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutEchoedDefaults);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => ECHOED_DEFAULTS.get(key) !== item)
      .map(([key, item]) => [key, withoutEchoedDefaults(item)]),
  );
}
