import { z } from 'zod';
import { ReportedFailureError } from '../../core/errors/reported-failure-error.js';
import type { Message } from '../../core/message.js';
import type { Environment, EnvironmentTurn } from '../environment.js';
import type { StepResultInput } from '../../core/step-result.js';
import { hermesToolCallParser, toToolCall, type IdentifiedToolCallBlock, type ToolCallParser } from '../tool-call-parser.js';
import { withoutCookies, type Cookies } from './cookie-jar.js';
import { NemoGymServer, type NemoGymServerOptions, type ServerSession } from './nemo-gym-server.js';
import { readRow, responseId, responseModel, responseTools, sessionKey, promptLength } from './nemo-gym-row.js';
import { lastTurnToolCalls } from './read-tool-calls.js';
import { reportedFields } from './reported-fields.js';
import { responseObject, responseOutput } from './response-object.js';

export interface NemoGymResourcesOptions extends NemoGymServerOptions {
  /** How the model writes tool calls in its text (default: Hermes / Qwen `<tool_call>`). */
  toolCallParser?: ToolCallParser;
}

/** An episode's state: its session's cookies, and how many messages its prompt has (the response's output follows them). */
export interface ResourcesEpisode {
  cookies: Cookies;
  prompt_messages: number;
}

/** What a NeMo Gym environment built on a server is, beyond an environment: the server, to close or ask for metrics. */
export type NemoGymServerEnvironment<Metadata> = Environment<Metadata> & { readonly server: NemoGymServer; close(): Promise<void> };

/** NeMo Gym's `BaseSeedSessionResponse` is empty; servers may add to it. */
const SeedSessionAnswer = z.looseObject({});

/** `BaseVerifyResponse`: the request echoed, the reward, and whatever the verifier adds. */
const VerifyAnswer = z.looseObject({
  reward: z.number().refine(Number.isFinite, 'a finite number'),
  reward_components: z.record(z.string(), z.number()).optional(),
  extracted_answer: z.string().nullable().optional(),
  _ng_failure_class: z.string().optional(),
  _ng_failure_judge_error: z.unknown().optional(),
});
type VerifyAnswer = z.infer<typeof VerifyAnswer>;

/** What the verifier answers that gymnast reads itself (or sent): not reported as fields. */
const READ_KEYS: ReadonlySet<string> = new Set(['reward', 'reward_components', 'extracted_answer', 'response', 'responses_create_params']);

/** A resources server's own endpoints: a model that names one as a tool is told it is not one. */
const PROTOCOL_ENDPOINTS: ReadonlySet<string> = new Set(['seed_session', 'verify', 'aggregate_metrics', 'reverify_mode', 'reset', 'step', 'close', 'mcp']);

/**
 * gymnast's own exact-token loop against a NeMo Gym resources server, as NeMo Gym's `simple_agent` drives
 * one: reset posts the whole row to `/seed_session` and keeps the session cookies it sets; a turn with
 * tool calls posts each call's arguments to `/<tool>` and answers with the body text, error statuses
 * included; a turn without (or the episode's final turn, after its calls) posts the row and the
 * conversation as a Responses object to `/verify`, whose reward ends the episode and whose other
 * fields reach the output row. A verifier reporting `_ng_failure_class` (a failed judge) fails the
 * rollout; a server that fails or answers garbage fails it typed. Never a reward it did not give.
 */
export function nemoGymResourcesEnvironment(options: NemoGymResourcesOptions): NemoGymServerEnvironment<ResourcesEpisode> {
  const server = new NemoGymServer(options);
  const parser = options.toolCallParser ?? hermesToolCallParser;

  const callTools = async (blocks: readonly IdentifiedToolCallBlock[], session: ServerSession, signal: AbortSignal) => {
    let { cookies } = session;
    const answers: Message[] = [];
    for (const block of blocks) {
      let output: string;
      if ('error' in block) output = JSON.stringify({ error: `Invalid tool call arguments: ${block.error}` });
      else if (PROTOCOL_ENDPOINTS.has(block.call.name)) output = JSON.stringify({ error: `${block.call.name} is not a tool` });
      else ({ text: output, cookies } = await server.tool(block.call.name, block.call.arguments, { key: session.key, cookies }, signal));
      answers.push({ role: 'tool', content: output, tool_call_id: block.id });
    }
    return { answers, cookies };
  };

  const verify = async (turn: EnvironmentTurn<ResourcesEpisode>, messages: readonly Message[], session: ServerSession, signal: AbortSignal) => {
    const { row, read } = readRow(options.name, turn.data);
    const response = responseObject({
      id: responseId(read),
      model: responseModel(read),
      output: responseOutput(messages, turn.metadata.prompt_messages, parser),
      usage: turn.usage,
      tools: responseTools(read),
    });
    return postVerify(server, { ...row, response }, session, signal);
  };

  return {
    name: options.name,
    server,
    recordedMetadata: withoutCookies,
    async reset(data, signal) {
      const { row, read } = readRow(options.name, data);
      const { cookies } = await server.call('/seed_session', row, SeedSessionAnswer, { key: sessionKey(read), cookies: {} }, signal);
      return { metadata: { cookies, prompt_messages: promptLength(read) } };
    },
    async step(turn, signal): Promise<StepResultInput> {
      const { read } = readRow(options.name, turn.data);
      const blocks = lastTurnToolCalls(turn.messages, parser);
      const called = await callTools(blocks, { key: sessionKey(read), cookies: turn.metadata.cookies }, signal);
      const toolCalls = blocks.length > 0 ? { tool_calls: blocks.map(toToolCall) } : {};
      if (blocks.length > 0 && !turn.final) {
        return { observation: called.answers, reward: 0, terminated: false, metadata: { ...turn.metadata, cookies: called.cookies }, ...toolCalls };
      }
      const verdict = await verify(turn, [...turn.messages, ...called.answers], { key: sessionKey(read), cookies: called.cookies }, signal);
      return {
        observation: called.answers,
        reward: verdict.value.reward,
        ...(verdict.value.reward_components ? { reward_components: verdict.value.reward_components } : {}),
        ...(verdict.value.extracted_answer !== undefined ? { answer: verdict.value.extracted_answer } : {}),
        // A final turn that still called tools did not end by itself: the engine's limit ends it (max-turns …), verified as it stands.
        terminated: blocks.length === 0,
        metadata: { ...turn.metadata, cookies: verdict.cookies },
        fields: verdict.fields,
        ...toolCalls,
      };
    },
    close: () => server.close(),
  };
}

/** What `/verify` answered: the reward and what the verifier added, and the session's cookies after it. */
export interface VerifyVerdict {
  value: VerifyAnswer;
  /** What the verifier added to the request or changed in it (see `reportedFields`). */
  fields: Record<string, unknown>;
  cookies: Cookies;
}

/**
 * POSTs a row and its response to the server's `/verify` (the episode's last call, and all of
 * `gymnast reverify`'s). A verifier reporting `_ng_failure_class` (a failed judge) is a
 * ReportedFailureError, never the reward it put beside it.
 */
export async function postVerify(server: NemoGymServer, sent: Record<string, unknown>, session: ServerSession, signal: AbortSignal): Promise<VerifyVerdict> {
  const { value, cookies } = await server.call('/verify', sent, VerifyAnswer, session, signal);
  const fields = reportedFields(value, sent, READ_KEYS);
  if (value._ng_failure_class !== undefined) throw new ReportedFailureError(server.name, failureMessage(value), fields);
  return { value, fields, cookies };
}

/** NeMo Gym's failsafe says which judge failed and why (`_ng_failure_judge_error`). */
function failureMessage(answer: VerifyAnswer): string {
  const detail = answer._ng_failure_judge_error;
  const why = detail === undefined ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`;
  return `the verifier reported ${answer._ng_failure_class}${why} (a failure, not a reward of ${answer.reward})`;
}
