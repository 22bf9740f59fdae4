import { EnvironmentError } from '../core/errors/environment-error.js';
import { RewardComponentsError } from '../core/errors/reward-components-error.js';
import type { Message } from '../core/message.js';
import type { EnvironmentTurn, EpisodeUsage } from '../environments/environment.js';
import type { StepResult } from '../core/step-result.js';
import { elapsedMs, systemClock } from '../util/clock.js';
import type { EpisodeOptions } from './episode-options.js';
import type { EpisodeState } from './episode-state.js';
import type { Generation } from './generation.js';
import { generatedTokens } from './generated-tokens.js';
import { readStepResult } from './read-step-result.js';
import { limitEnd } from './next-step.js';
import { asEnvironmentError, typedErrors } from './wrap-error.js';

/** Components may differ from the reward by float rounding, not more. */
const COMPONENT_TOLERANCE = 1e-6;

export interface Step {
  result: StepResult;
  ms: number;
}

/**
 * Hands the conversation (text only) to the environment and checks what comes back. The tool calls it
 * read are noted against the assistant message they came from, for the record.
 */
export async function stepEnvironment(state: EpisodeState, options: EpisodeOptions, generation: Generation, turn: number, signal: AbortSignal): Promise<Step> {
  const { environment } = options;
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const handed: EnvironmentTurn = {
    messages: state.messages.map(withoutTokens),
    metadata: state.metadata,
    data: state.task.data,
    usage: usageSoFar(state, generation),
    final: limitEnd(generation, turn, options) !== undefined,
  };
  const raw = await typedErrors(signal, asEnvironmentError(environment.name, 'step'), () => environment.step(handed, signal));
  const parsed = readStepResult(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(result)'}: ${issue.message}`).join('; ');
    throw new EnvironmentError(environment.name, `step returned an invalid result: ${issues}`);
  }
  checkComponents(environment.name, parsed.data);
  if (parsed.data.tool_calls && parsed.data.tool_calls.length > 0) (state.toolCalls ??= new Map()).set(state.messages.length - 1, parsed.data.tool_calls);
  return { result: parsed.data, ms: elapsedMs(started, clock.now()) };
}

/** The recorded turns' tokens and this turn's, as NeMo Gym's `response.usage` adds them up. */
function usageSoFar(state: EpisodeState, generation: Generation): EpisodeUsage {
  const input = state.turns.reduce((total, turn) => total + turn.prompt_tokens, generation.promptTokens);
  const output = state.turns.reduce((total, turn) => total + turn.generated_tokens, generatedTokens(generation.result));
  return { input_tokens: input, output_tokens: output, total_tokens: input + output };
}

function checkComponents(environment: string, result: StepResult): void {
  if (result.reward_components === undefined) return;
  const sum = Object.values(result.reward_components).reduce((total, value) => total + value, 0);
  if (Math.abs(sum - result.reward) > COMPONENT_TOLERANCE) {
    throw new RewardComponentsError(environment, result.reward, result.reward_components);
  }
}

/**
 * A message's text fields, copied one by one: every turn hands the environment the whole
 * conversation, and an object rest (`{ token_ids, ...message }`) copied each message through V8's
 * slow generic path, 5× the cost of this.
 */
function withoutTokens(message: Message): Message {
  const text: Message = { role: message.role, content: message.content };
  if (message.reasoning_content !== undefined) text.reasoning_content = message.reasoning_content;
  if (message.tool_calls !== undefined) text.tool_calls = message.tool_calls;
  if (message.tool_call_id !== undefined) text.tool_call_id = message.tool_call_id;
  return text;
}
