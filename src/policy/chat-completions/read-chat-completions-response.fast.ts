// Fast path: mirrors the ChatCompletionsResponse schema; 24× faster (docs/fast-paths.md#hand-checks); guard: test/policy/wire-response-fast-path.test.ts.
import { isRecord } from '../../util/is-record.js';
import { isCount, isIntList, isNumber, readUsage } from '../wire-checks.fast.js';
import type { ChatCompletionsResponse } from './chat-completions-wire-types.js';

type Choice = ChatCompletionsResponse['choices'][number];
type LogprobContent = NonNullable<NonNullable<Choice['logprobs']>['content']>;

/**
 * A `/v1/chat/completions` answer as the `ChatCompletionsResponse` schema reads it (its fields in its
 * order, others dropped), confirmed by hand, or undefined for anything the schema must read (and name
 * what is wrong). Once a turn, zod's generic walk of every token's logprob cost more than this.
 */
export function readChatCompletionsResponse(value: unknown): ChatCompletionsResponse | undefined {
  if (!isRecord(value) || !Array.isArray(value.choices) || value.choices.length === 0) return undefined;
  const { prompt_token_ids } = value;
  const usage = readUsage(value.usage);
  if (!usage || (prompt_token_ids != null && !isIntList(prompt_token_ids))) return undefined;
  const choices: Choice[] = [];
  for (const item of value.choices) {
    const choice = readChoice(item);
    if (!choice) return undefined;
    choices.push(choice);
  }
  // The schema's keys in its order; an optional one only when the answer has it.
  const answer: Record<string, unknown> = { choices };
  if ('prompt_token_ids' in value) answer.prompt_token_ids = prompt_token_ids;
  answer.usage = usage;
  return answer as ChatCompletionsResponse;
}

function readChoice(value: unknown): Choice | undefined {
  if (!isRecord(value) || !isRecord(value.message)) return undefined;
  const { token_ids, prompt_token_ids, logprobs, finish_reason, policy_version } = value;
  const { content } = value.message;
  if ((typeof content !== 'string' && content !== null) || (typeof finish_reason !== 'string' && finish_reason !== null)) return undefined;
  if ((token_ids != null && !isIntList(token_ids)) || (prompt_token_ids != null && !isIntList(prompt_token_ids))) return undefined;
  const logprobContent = logprobs == null ? undefined : isRecord(logprobs) ? readLogprobContent(logprobs.content) : undefined;
  if (logprobs != null && logprobContent === undefined) return undefined;
  if (policy_version !== undefined && !isCount(policy_version)) return undefined;
  const choice: Record<string, unknown> = { message: { content } };
  if ('token_ids' in value) choice.token_ids = token_ids;
  if ('prompt_token_ids' in value) choice.prompt_token_ids = prompt_token_ids;
  if ('logprobs' in value) choice.logprobs = logprobs == null ? logprobs : { content: logprobContent };
  choice.finish_reason = finish_reason;
  if ('policy_version' in value) choice.policy_version = policy_version;
  return choice as Choice;
}

/** `[{token, logprob}]` (each entry's other fields dropped) or null; undefined for anything else. */
function readLogprobContent(value: unknown): LogprobContent | null | undefined {
  if (value === null) return null;
  if (!Array.isArray(value)) return undefined;
  const content: LogprobContent = [];
  for (const entry of value) {
    if (!isRecord(entry) || typeof entry.token !== 'string' || !isNumber(entry.logprob)) return undefined;
    content.push({ token: entry.token, logprob: entry.logprob });
  }
  return content;
}
