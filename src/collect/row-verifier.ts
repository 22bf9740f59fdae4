import type { ResultRow } from '../core/result-row.js';
import { EnvironmentError } from '../core/errors/environment-error.js';
import type { Message } from '../core/message.js';
import { StepResult } from '../core/step-result.js';
import type { Environment } from '../environments/environment.js';
import { NemoGymServer } from '../environments/nemo-gym/nemo-gym-server.js';
import { postVerify } from '../environments/nemo-gym/resources-server-environment.js';
import { sessionKey, readRow } from '../environments/nemo-gym/nemo-gym-row.js';
import { ReverifyError } from './reverify-error.js';

/** What a verifier says of a saved rollout now. */
export interface Rescore {
  reward: number;
  extracted_answer?: string | null;
  reward_components?: Record<string, number>;
}

/** Scores saved rollouts again without a model: an environment's own steps, or a NeMo Gym server's `/verify`. */
export interface RowVerifier {
  readonly name: string;
  verify(row: ResultRow, signal: AbortSignal): Promise<Rescore>;
  close(): Promise<void>;
}

/** Fields of a saved row that are gymnast's record of the episode, not task data a verifier reads. */
const RECORD_FIELDS = ['messages', 'turns', 'env_metadata', 'terminal_env_metadata', 'sampling'] as const;

/**
 * A built-in environment replays the saved transcript: reset on the row (its task fields are the task
 * data, as collect handed them), then one step per assistant message on the conversation up to it, the
 * rewards summed as the engine sums them. Its reward is recomputed; the model's words are the saved ones,
 * so a replay stops where the environment now ends the episode (a new answer key accepting an earlier attempt).
 */
export function environmentVerifier(environment: Environment): RowVerifier {
  return {
    name: environment.name,
    async verify(row, signal) {
      const messages = savedMessages(row);
      const data = taskData(row);
      let { metadata } = await environment.reset(data, signal);
      const assistantAt = messages.flatMap((message, at) => (message.role === 'assistant' ? [at] : []));
      if (assistantAt.length === 0) throw new ReverifyError('the row has no assistant message to score');
      let reward = 0;
      let answer: string | null | undefined;
      for (const [index, at] of assistantAt.entries()) {
        const final = index === assistantAt.length - 1;
        const step = checkedStep(environment.name, await environment.step({ messages: messages.slice(0, at + 1), metadata, data, final }, signal));
        reward += step.reward;
        if (step.answer !== undefined) answer = step.answer;
        metadata = step.metadata === undefined ? metadata : step.metadata;
        if (step.terminated || step.truncated) break;
      }
      return answer === undefined ? { reward } : { reward, extracted_answer: answer };
    },
    close: async () => {},
  };
}

/** Options of a NeMo Gym resources server's verifier. */
export interface ResourcesVerifierOptions {
  name: string;
  url: string;
  /** Deadline of one `/verify` call, each retry its own. */
  timeoutMs?: number;
}

/** A NeMo Gym resources server: each row, its saved response included, is POSTed to `/verify` as NeMo Gym's agents send it. */
export function resourcesVerifier(options: ResourcesVerifierOptions): RowVerifier {
  const server = new NemoGymServer({ name: options.name, urls: [options.url], ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) });
  return {
    name: options.name,
    async verify(row, signal) {
      const sent = taskData(row);
      const { read } = readRow(options.name, sent);
      const { value } = await postVerify(server, sent, { key: sessionKey(read), cookies: {} }, signal);
      return {
        reward: value.reward,
        ...(value.extracted_answer !== undefined ? { extracted_answer: value.extracted_answer } : {}),
        ...(value.reward_components ? { reward_components: value.reward_components } : {}),
      };
    },
    close: () => server.close(),
  };
}

function checkedStep(environment: string, raw: unknown): StepResult {
  const parsed = StepResult.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new EnvironmentError(environment, `step returned an invalid result: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
}

function savedMessages(row: ResultRow): readonly Message[] {
  if (!row.messages || row.messages.length === 0) throw new ReverifyError('the row has no messages (written without its transcript)');
  // Text only, as the engine hands an environment its turns.
  return row.messages.map(({ token_ids: _ids, generation_logprobs: _logprobs, ...message }) => message);
}

/** The row as a verifier reads it: the request, the response and the task fields, without gymnast's record of the episode. */
function taskData(row: ResultRow): Record<string, unknown> {
  const data: Record<string, unknown> = { ...row };
  for (const field of RECORD_FIELDS) delete data[field];
  return data;
}
