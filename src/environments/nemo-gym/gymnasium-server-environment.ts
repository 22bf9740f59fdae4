import { z } from 'zod';
import { EnvironmentError } from '../../core/errors/environment-error.js';
import { GymnastError } from '../../core/errors/gymnast-error.js';
import { ReportedFailureError } from '../../core/errors/reported-failure-error.js';
import type { Message } from '../../core/message.js';
import type { EpisodeUsage } from '../environment.js';
import type { StepResultInput } from '../../core/step-result.js';
import { hermesToolCallParser, toToolCall } from '../tool-call-parser.js';
import { withoutCookies, type Cookies } from './cookie-jar.js';
import { NemoGymServer } from './nemo-gym-server.js';
import { promptLength, readRow, responseId, responseModel, responseTools, sessionKey } from './nemo-gym-row.js';
import { lastTurnToolCalls } from './read-tool-calls.js';
import { reportedFields } from './reported-fields.js';
import type { NemoGymResourcesOptions, NemoGymServerEnvironment } from './resources-server-environment.js';
import { responseObject, responseOutput } from './response-object.js';

/** An episode's state: its cookies, its prompt's length, whether the server wants `/close`, and the tokens already reported. */
export interface GymnasiumServerEpisode {
  cookies: Cookies;
  prompt_messages: number;
  /** The server said `info.supports_explicit_close` on reset: `/close` ends its episode. */
  explicit_close: boolean;
  /** Usage up to the previous step: each `/step` gets its own turn's usage, as NeMo Gym's agent sends it. */
  usage: EpisodeUsage;
  /** `/close` was sent (the episode's last step): `release` does not send it again. */
  closed?: boolean;
}

const Info = z.record(z.string(), z.unknown());

/** `EnvResetResponse`. */
const ResetAnswer = z.looseObject({ observation: z.string().nullable().optional(), info: Info.nullable().optional() });

/** `EnvStepResponse`; `info.tool_outputs` answers the turn's function calls. */
const StepAnswer = z.looseObject({
  observation: z.string().nullable().optional(),
  reward: z.number().refine(Number.isFinite, 'a finite number'),
  terminated: z.boolean(),
  truncated: z.boolean().default(false),
  info: Info.nullable().optional(),
  _ng_failure_class: z.string().optional(),
});

const ToolOutputs = z.array(z.looseObject({ call_id: z.string(), output: z.unknown() }));

const READ_KEYS: ReadonlySet<string> = new Set(['observation', 'reward', 'terminated', 'truncated', 'response', 'responses_create_params']);

const NO_USAGE: EpisodeUsage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };

/**
 * gymnast's exact-token loop against a NeMo Gym gymnasium-style server (`/reset`, `/step`, optional
 * `/close`), as NeMo Gym's `gymnasium_agent` drives one: reset posts the row and shows a non-empty
 * observation as a user turn; each turn posts the row and that turn's Responses object to `/step`, and
 * its `info.tool_outputs` come back as tool messages, its observation as a user turn. `terminated` and
 * `truncated` end the episode; rewards add up; the last step's `info` reaches the output row. The
 * episode's cookies go with every call; a server that said `supports_explicit_close` gets `/close`.
 */
export function nemoGymGymnasiumEnvironment(options: NemoGymResourcesOptions): NemoGymServerEnvironment<GymnasiumServerEpisode> {
  const server = new NemoGymServer(options);
  const parser = options.toolCallParser ?? hermesToolCallParser;

  /** Ends the server's episode when it asked for it; a failed close is a warning in `info`, as NeMo Gym's agent keeps it. */
  const close = async (episode: GymnasiumServerEpisode, key: string, signal: AbortSignal): Promise<Record<string, unknown>> => {
    if (!episode.explicit_close) return {};
    try {
      await server.call('/close', {}, z.unknown(), { key, cookies: episode.cookies }, signal);
      return {};
    } catch (error) {
      if (!GymnastError.isInstance(error) || signal.aborted) throw error;
      return { cleanup_warning: { operation: 'close', error_type: error.name, message: error.message } };
    }
  };

  return {
    name: options.name,
    server,
    // Its /reset may answer with the first observation.
    opensConversation: true,
    recordedMetadata: withoutCookies,
    async reset(data, signal) {
      const { row, read } = readRow(options.name, data);
      const { value, cookies } = await server.call('/reset', row, ResetAnswer, { key: sessionKey(read), cookies: {} }, signal);
      const observation: Message[] = value.observation ? [{ role: 'user', content: value.observation }] : [];
      const metadata = {
        cookies,
        prompt_messages: promptLength(read) + observation.length,
        explicit_close: value.info?.supports_explicit_close === true,
        usage: NO_USAGE,
      };
      return { metadata, observation };
    },
    async step(turn, signal): Promise<StepResultInput> {
      const { row, read } = readRow(options.name, turn.data);
      const key = sessionKey(read);
      const usage = turn.usage ?? NO_USAGE;
      const response = responseObject({
        id: responseId(read, `_${turn.messages.filter((message) => message.role === 'assistant').length - 1}`),
        model: responseModel(read),
        output: responseOutput(turn.messages, turn.messages.length - 1, parser),
        usage: {
          input_tokens: usage.input_tokens - turn.metadata.usage.input_tokens,
          output_tokens: usage.output_tokens - turn.metadata.usage.output_tokens,
          total_tokens: usage.total_tokens - turn.metadata.usage.total_tokens,
        },
        tools: responseTools(read),
      });
      const sent = { ...row, response };
      const { value, cookies } = await server.call('/step', sent, StepAnswer, { key, cookies: turn.metadata.cookies }, signal);
      const info = value.info ?? {};
      const fields = { ...reportedFields(value, sent, READ_KEYS), info };
      if (value._ng_failure_class !== undefined) throw new ReportedFailureError(options.name, `the server reported ${value._ng_failure_class}`, fields);
      const ends = value.terminated || value.truncated || turn.final === true;
      const episode = { ...turn.metadata, cookies, usage, ...(ends && turn.metadata.explicit_close ? { closed: true } : {}) };
      const warning = ends ? await close(episode, key, signal) : {};
      const blocks = lastTurnToolCalls(turn.messages, parser);
      return {
        observation: observationOf(options.name, value.observation, info, ends),
        reward: value.reward,
        terminated: value.terminated,
        truncated: value.truncated,
        metadata: episode,
        fields: Object.keys(warning).length > 0 ? { ...fields, info: { ...info, ...warning } } : fields,
        ...(blocks.length > 0 ? { tool_calls: blocks.map(toToolCall) } : {}),
      };
    },
    /** An episode that ended before its last step (a limit, a failed generation, a timeout) still ends the server's, as NeMo Gym's agent closes in a `finally`. */
    async release({ metadata, data }, signal) {
      if (!metadata.explicit_close || metadata.closed) return;
      await close(metadata, sessionKey(readRow(options.name, data).read), signal);
    },
    close: () => server.close(),
  };
}

/**
 * The step's answers as messages: tool outputs as tool messages (answering their call ids), then the
 * observation as a user turn. A step that goes on with neither still needs a turn to answer: an empty
 * user turn (NeMo Gym's agent would prompt the model again with nothing new).
 */
function observationOf(environment: string, observation: string | null | undefined, info: Record<string, unknown>, ends: boolean): Message[] {
  const outputs = ToolOutputs.safeParse(info.tool_outputs ?? []);
  if (!outputs.success)
    throw new EnvironmentError(
      environment,
      `/step answered info.tool_outputs that is not a list of {call_id, output}: ${JSON.stringify(info.tool_outputs).slice(0, 120)}`,
    );
  const tools: Message[] = outputs.data.map((tool) => ({
    role: 'tool',
    content: typeof tool.output === 'string' ? tool.output : JSON.stringify(tool.output),
    tool_call_id: tool.call_id,
  }));
  const said: Message[] = observation ? [{ role: 'user', content: observation }] : [];
  const messages = [...tools, ...said];
  return messages.length === 0 && !ends ? [{ role: 'user', content: '' }] : messages;
}
