import { rowToTask } from '../src/collect/agent.js';
import { DatasetRow } from '../src/collect/dataset-row.js';
import { readDatasetRow } from '../src/collect/read-dataset-row.js';
import { plainRequest } from '../src/collect/plain-request.fast.js';
import { RequestFields } from '../src/collect/request-fields.js';
import { EpisodeTask } from '../src/core/episode-task.js';
import { plainDatasetRow } from '../src/collect/plain-dataset-row.fast.js';
import { isPlainResultRow } from '../src/core/plain-rows.fast.js';
import { MaterializedRow, ResultRow } from '../src/core/result-row.js';
import { readFullRow, readRow, ResultRowHead } from '../src/core/row-reader.js';
import { parseWithIssues } from '../src/core/schema-issues.js';
import { plainPolicyResult } from '../src/engine/plain-policy-result.fast.js';
import { readPolicyResult } from '../src/engine/read-policy-result.js';
import { plainStepResult } from '../src/engine/plain-step-result.fast.js';
import { readStepResult } from '../src/engine/read-step-result.js';
import { StepResult } from '../src/core/step-result.js';
import { ChatCompletionsResponse } from '../src/policy/chat-completions/chat-completions-wire-types.js';
import { readChatCompletionsResponse } from '../src/policy/chat-completions/read-chat-completions-response.fast.js';
import { PolicyResult } from '../src/core/policy-result.js';
import { readSglangGenerateResponse } from '../src/policy/sglang-generate/read-sglang-generate-response.fast.js';
import { SglangGenerateResponse } from '../src/policy/sglang-generate/sglang-generate-wire-types.js';
import { readVllmCompletionsResponse } from '../src/policy/vllm-completions/read-vllm-completions-response.fast.js';
import { VllmCompletionsResponse } from '../src/policy/vllm-completions/vllm-completions-wire-types.js';
import { plannedRow, resultRow } from './aggregate-rows.js';
import type { BenchResult } from './bench-result.js';
import { perCall } from './per-call.js';

/** As it comes off the wire or out of a file: parsed JSON. */
const parsed = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A turn's generation: this many tokens, with ids and logprobs (a short answer; a long one only widens the gap). */
const GENERATED = 256;
const PROMPT = 1_024;
const ids = (count: number, seed: number) => Array.from({ length: count }, (_, i) => (seed * 131 + i * 17) % 151_000);
const logprobs = (count: number) => Array.from({ length: count }, (_, i) => -((i % 97) / 50));

const vllmAnswer = parsed({
  choices: [
    {
      index: 0,
      text: 'x'.repeat(GENERATED),
      token_ids: ids(GENERATED, 1),
      prompt_token_ids: ids(PROMPT, 2),
      logprobs: { token_logprobs: logprobs(GENERATED), tokens: ids(GENERATED, 1).map(String) },
      finish_reason: 'stop',
      stop_reason: null,
    },
  ],
  usage: { prompt_tokens: PROMPT, completion_tokens: GENERATED, total_tokens: PROMPT + GENERATED },
});
/** What the arithmetic environment returns after a wrong answer with attempts left: the commonest step of a collect. */
const stepResult = {
  observation: [{ role: 'user', content: 'Incorrect, try again.' }],
  reward: 0,
  terminated: false,
  metadata: { problem: '3+4', answer: 7, attempts: 1 },
  answer: '8',
};
const chatAnswer = parsed({
  id: 'c',
  object: 'chat.completion',
  model: 'm',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'x'.repeat(GENERATED) },
      token_ids: ids(GENERATED, 1),
      logprobs: { content: logprobs(GENERATED).map((logprob, i) => ({ token: `t${i}`, logprob, bytes: [116], top_logprobs: [] })) },
      finish_reason: 'stop',
    },
  ],
  prompt_token_ids: ids(PROMPT, 2),
  usage: { prompt_tokens: PROMPT, completion_tokens: GENERATED, total_tokens: PROMPT + GENERATED },
});
const sglangAnswer = parsed({
  text: 'x'.repeat(GENERATED),
  output_ids: ids(GENERATED, 1),
  prompt_token_ids: ids(PROMPT, 2),
  meta_info: {
    id: 'r',
    finish_reason: { type: 'stop', matched: 151645 },
    prompt_tokens: PROMPT,
    completion_tokens: GENERATED,
    output_token_logprobs: logprobs(GENERATED).map((logprob, i) => [logprob, ids(GENERATED, 1)[i], null]),
  },
});
const policyResult = {
  token_ids: ids(GENERATED, 1),
  logprobs: logprobs(GENERATED),
  text: 'x'.repeat(GENERATED),
  finish_reason: { unified: 'stop', raw: 'stop' },
  usage: { prompt_tokens: PROMPT, completion_tokens: GENERATED },
  prompt_token_ids: ids(PROMPT, 2),
  prompt_source: 'server',
};
const row = parsed(resultRow(7, 2));
const planned = parsed(plannedRow(7, 2));
const request = planned.responses_create_params;
const task = rowToTask(MaterializedRow.parse(planned));
const input = parsed({ responses_create_params: request, agent_ref: planned.agent_ref, problem: planned.problem, answer: planned.answer });

interface HandCheck {
  /** What is read, and the schema the hand check mirrors. */
  name: string;
  /** Whether the hand check takes the value (else the fast side would time the schema too). */
  taken: () => boolean;
  fast: () => unknown;
  slow: () => unknown;
}

/**
 * Each hand check against the zod schema it mirrors, on the value it is there for (what a server, an
 * environment or a run's own file gives): the same reading, by hand and by the schema.
 */
const HAND_CHECKS: HandCheck[] = [
  {
    name: `ResultRow, a 3-turn rollout read whole (readFullRow: viewer, health, export)`,
    taken: () => isPlainResultRow(row, true),
    fast: () => readFullRow(row, 'x:1'),
    slow: () => ResultRow.safeParse(row),
  },
  {
    name: `ResultRowHead, a 3-turn rollout without its messages (readRow: aggregate, resume, viewer index)`,
    taken: () => isPlainResultRow(row, false),
    fast: () => readRow(row, 'x:1'),
    slow: () => ResultRowHead.safeParse(row),
  },
  {
    name: 'DatasetRow, an input line (readDatasetRow: check and plan)',
    taken: () => plainDatasetRow(input) !== undefined,
    fast: () => readDatasetRow(input),
    slow: () => parseWithIssues(DatasetRow, input),
  },
  {
    name: "RequestFields + EpisodeTask, a planned rollout's request made a task (plainRequest: rowToTask)",
    taken: () => plainRequest(request) !== undefined,
    fast: () => plainRequest(request),
    slow: () => [RequestFields.safeParse(request), EpisodeTask.safeParse(task)],
  },
  {
    name: `PolicyResult, a ${GENERATED}-token generation (readPolicyResult: every turn)`,
    taken: () => plainPolicyResult(policyResult) !== undefined,
    fast: () => readPolicyResult(policyResult),
    slow: () => PolicyResult.safeParse(policyResult),
  },
  {
    name: "StepResult, the arithmetic environment's retry (readStepResult: every turn)",
    taken: () => plainStepResult(stepResult) !== undefined,
    fast: () => readStepResult(stepResult),
    slow: () => StepResult.safeParse(stepResult),
  },
  {
    name: `VllmCompletionsResponse, a ${GENERATED}-token answer with logprobs (every turn)`,
    taken: () => readVllmCompletionsResponse(vllmAnswer) !== undefined,
    fast: () => readVllmCompletionsResponse(vllmAnswer),
    slow: () => VllmCompletionsResponse.safeParse(vllmAnswer),
  },
  {
    name: `ChatCompletionsResponse, a ${GENERATED}-token answer with logprobs (every turn)`,
    taken: () => readChatCompletionsResponse(chatAnswer) !== undefined,
    fast: () => readChatCompletionsResponse(chatAnswer),
    slow: () => ChatCompletionsResponse.safeParse(chatAnswer),
  },
  {
    name: `SglangGenerateResponse, a ${GENERATED}-token answer with logprobs (every turn)`,
    taken: () => readSglangGenerateResponse(sglangAnswer) !== undefined,
    fast: () => readSglangGenerateResponse(sglangAnswer),
    slow: () => SglangGenerateResponse.safeParse(sglangAnswer),
  },
];

/** µs per reading, by hand against by the schema, measured side by side in this run. */
export async function handCheckCosts(): Promise<BenchResult[]> {
  return HAND_CHECKS.map(({ name, taken, fast, slow }) => {
    if (!taken()) throw new Error(`bench: ${name}: the hand check declines the value`);
    const measured = perCall({ fast, slow });
    return {
      name: `hand check vs zod: ${name}`,
      baseline: { label: 'zod schema', value: measured.slow, unit: 'µs' },
      measured: { label: 'hand check', value: measured.fast, unit: 'µs' },
      lowerIsBetter: true,
    };
  });
}
