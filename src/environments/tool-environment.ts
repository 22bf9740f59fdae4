import type { z } from 'zod';
import type { Message } from '../core/message.js';
import type { Environment } from './environment.js';
import type { StepResultInput } from '../core/step-result.js';
import { lastTurnToolCalls } from './nemo-gym/read-tool-calls.js';
import { hermesToolCallParser, toToolCall, type ToolCallParser } from './tool-call-parser.js';

type Awaitable<T> = T | Promise<T>;

/** A tool box with a verifier, NeMo Gym's resources-server pattern, in process. */
export interface ToolEnvironmentSpec<State> {
  name: string;
  /** The task data `reset` reads (see `Environment.taskSchema`). */
  taskSchema?: z.ZodType;
  /** The episode's starting state, from the task's data. */
  reset(data: unknown): Awaitable<State>;
  /** The tools by name: each returns its output (shown to the model as JSON) and the new state. */
  tools: Record<string, (args: Record<string, unknown>, state: State) => Awaitable<{ output: unknown; state: State }>>;
  /** Scores the finished episode; `fields` go on its row (see `StepResult.fields`). */
  verify(
    state: State,
    messages: readonly Message[],
  ): Awaitable<{ reward: number; reward_components?: Record<string, number>; fields?: Record<string, unknown> }>;
  /** Tool calls allowed before the episode is verified as it stands (default 16). */
  maxToolCalls?: number;
  /** How the model writes tool calls (default Hermes/Qwen `<tool_call>` blocks). */
  toolCallParser?: ToolCallParser;
}

/** Key of the tool box a tool-calling environment carries, for serving its tools one endpoint each. */
const TOOL_BOX = Symbol.for('gymnast.toolBox');

/** A tool-calling environment's tools, run against an episode's metadata (gymnast serve resources: one POST per tool). */
export interface EnvironmentToolBox {
  readonly names: readonly string[];
  call(name: string, args: Record<string, unknown>, metadata: unknown): Promise<{ output: unknown; metadata: unknown }>;
}

/** The tool box of an environment made by `toolCallingEnvironment` or given one by `withToolBox`; undefined for any other. */
export function environmentToolBox(environment: Environment): EnvironmentToolBox | undefined {
  return (environment as { [TOOL_BOX]?: EnvironmentToolBox })[TOOL_BOX];
}

/** The environment with its tools served one endpoint each by `gymnast serve resources`, as a tool-calling environment's are. */
export function withToolBox<Metadata>(environment: Environment<Metadata>, toolBox: EnvironmentToolBox): Environment<Metadata> {
  return Object.assign(environment, { [TOOL_BOX]: toolBox });
}

interface ToolEpisode<State> {
  state: State;
  tool_calls: number;
}

/**
 * The tool-calling loop: each assistant turn either calls tools (`<tool_call>` blocks), which run in
 * order and answer as `tool` messages, or answers, which ends the episode with the verifier's reward.
 * Unknown tools and malformed calls are answered with an error the model can read, not a crash.
 */
export function toolCallingEnvironment<State>(spec: ToolEnvironmentSpec<State>): Environment<ToolEpisode<State>> {
  const maxToolCalls = spec.maxToolCalls ?? 16;
  const parser = spec.toolCallParser ?? hermesToolCallParser;
  const toolBox: EnvironmentToolBox = {
    names: Object.keys(spec.tools),
    async call(name, args, metadata) {
      const episode = metadata as ToolEpisode<State>;
      const result = await spec.tools[name]!(args, episode.state);
      return { output: result.output, metadata: { state: result.state, tool_calls: episode.tool_calls + 1 } };
    },
  };
  const environment: Environment<ToolEpisode<State>> = {
    name: spec.name,
    ...(spec.taskSchema ? { taskSchema: spec.taskSchema } : {}),
    async reset(data) {
      return { metadata: { state: await spec.reset(data), tool_calls: 0 } };
    },
    async step({ messages, metadata }): Promise<StepResultInput> {
      const blocks = lastTurnToolCalls(messages, parser);
      if (blocks.length === 0) return finish(spec, metadata, messages);
      let { state } = metadata;
      const observation: Message[] = [];
      for (const block of blocks) {
        const tool = 'call' in block ? spec.tools[block.call.name] : undefined;
        if ('error' in block || !tool) {
          const error = 'error' in block ? block.error : `unknown tool "${block.call.name}"`;
          observation.push({ role: 'tool', content: JSON.stringify({ error }), tool_call_id: block.id });
          continue;
        }
        const result = await tool(block.call.arguments, state);
        state = result.state;
        observation.push({ role: 'tool', content: JSON.stringify(result.output), tool_call_id: block.id });
      }
      const next = { state, tool_calls: metadata.tool_calls + blocks.length };
      const toolCalls = blocks.map(toToolCall);
      if (next.tool_calls > maxToolCalls) return { ...(await finish(spec, next, messages)), tool_calls: toolCalls };
      return { observation, reward: 0, terminated: false, metadata: next, tool_calls: toolCalls };
    },
  };
  return withToolBox(environment, toolBox);
}

async function finish<State>(spec: ToolEnvironmentSpec<State>, episode: ToolEpisode<State>, messages: readonly Message[]): Promise<StepResultInput> {
  const verdict = await spec.verify(episode.state, messages);
  return {
    observation: [],
    reward: verdict.reward,
    ...(verdict.reward_components ? { reward_components: verdict.reward_components } : {}),
    ...(verdict.fields ? { fields: verdict.fields } : {}),
    terminated: true,
    metadata: episode,
  };
}
