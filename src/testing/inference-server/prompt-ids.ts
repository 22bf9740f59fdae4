import { isRecord } from '../../util/is-record.js';

/**
 * A generating route's answer with the prompt's ids replaced by `ids` (or left out, for `null`)
 * wherever it has them: at the top (vLLM's chat, SGLang's `/generate`) and on each choice (completions,
 * SGLang's chat). A place without them stays without them.
 */
export function withPromptIds(body: unknown, ids: number[] | null): unknown {
  if (!isRecord(body)) return body;
  const answer = replaced(body, ids);
  return Array.isArray(answer.choices)
    ? { ...answer, choices: answer.choices.map((choice: unknown) => (isRecord(choice) ? replaced(choice, ids) : choice)) }
    : answer;
}

function replaced(value: Record<string, unknown>, ids: number[] | null): Record<string, unknown> {
  if (!('prompt_token_ids' in value)) return value;
  const { prompt_token_ids: _replaced, ...rest } = value;
  return ids === null ? rest : { ...value, prompt_token_ids: ids };
}
