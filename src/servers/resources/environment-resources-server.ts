import { z } from 'zod';
import type { Message } from '../../core/message.js';
import { ResponsesItem, responsesInputToMessages } from '../../core/responses-items.js';
import type { Environment } from '../../environments/environment.js';
import { StepResult } from '../../core/step-result.js';
import { environmentToolBox } from '../../environments/tool-environment.js';
import { JsonServer, type JsonRoute } from '../http-server/json-server.js';
import { aggregateMetricsRoute, RunRequest, VerifyRequest } from './define-resources-server.js';
import { ok, parseBody, type ResourcesServeOptions } from './resources-server-definition.js';
import { actionText, assistantText } from './response-text.js';
import { sessionCookieName, withSession } from './session-routes.js';
import { SessionStore, type ResourcesSession } from './session-store.js';

/** One session's episode: the environment's metadata and the conversation its steps read. */
type Episode = { metadata: unknown; messages: Message[] } | undefined;

const Input = z.object({ input: z.union([z.string(), z.array(ResponsesItem)]).default([]) });

/**
 * Serves a built-in environment as a NeMo Gym resources server (`gymnast serve resources ENV`):
 * - `/seed_session` resets the environment on the run body (its fields are the task data);
 * - a tool-calling environment's tools are one `POST /<tool>` each, on the session's episode;
 * - `/verify` steps the environment once on the response's assistant text (a single-turn verifier
 *   such as math scores it; a tool environment, seeing no tool call, verifies its state), resetting
 *   first when the session was never seeded;
 * - `/reset` and `/step` (the gymnasium variant) drive multi-turn games turn by turn, each reply's
 *   observation being the environment's messages joined.
 */
export function environmentResourcesServer(environment: Environment, options: ResourcesServeOptions = {}): JsonServer {
  const store = new SessionStore<Episode>(() => undefined);
  const session = (handler: (body: unknown, session: ResourcesSession<Episode>, signal: AbortSignal) => Promise<ReturnType<typeof ok>>): JsonRoute =>
    withSession(store, sessionCookieName('GymnastEnvironmentServer', environment.name), ({ body, signal }, current) => handler(body, current, signal));
  const reset = async (body: RunRequest, current: ResourcesSession<Episode>, signal: AbortSignal) => {
    const started = await environment.reset(body, signal);
    const prompt = responsesInputToMessages(Input.parse(body.responses_create_params).input);
    current.state = { metadata: started.metadata, messages: [...prompt, ...(started.observation ?? [])] };
    return { episode: current.state, observation: started.observation ?? [] };
  };
  const step = async (body: RunRequest, current: ResourcesSession<Episode>, text: string, signal: AbortSignal) => {
    const episode = current.state ?? (await reset(body, current, signal)).episode;
    const messages: Message[] = [...episode.messages, { role: 'assistant', content: text }];
    // Checked as the engine checks it: a broken step is the environment's error, not a bad reply.
    const result = StepResult.parse(await environment.step({ messages, metadata: episode.metadata }, signal));
    const observation = result.observation;
    current.state = { metadata: result.metadata ?? episode.metadata, messages: [...messages, ...observation] };
    return { result, observation: observation.length === 0 ? null : observation.map((message) => message.content).join('\n') };
  };
  const toolBox = environmentToolBox(environment);
  const toolRoutes = new Map(
    (toolBox?.names ?? []).map((name) => [
      `/${name}`,
      session(async (body, current, signal) => {
        const args = z.record(z.string(), z.unknown()).safeParse(body ?? {});
        if (!args.success) return ok({ detail: [{ type: 'object', loc: ['body'], msg: 'tool arguments must be a JSON object' }] }, 422);
        const episode = current.state ?? (await reset({ responses_create_params: {} }, current, signal)).episode;
        const called = await toolBox!.call(name, args.data, episode.metadata);
        current.state = { ...episode, metadata: called.metadata };
        return ok(called.output);
      }),
    ]),
  );
  return new JsonServer({
    ...options,
    routes: {
      'POST /seed_session': session(async (body, current, signal) => {
        const request = parseBody(RunRequest, body);
        if (!request.ok) return request.reply;
        await reset(request.value, current, signal);
        return ok({});
      }),
      'POST /verify': session(async (body, current, signal) => {
        const request = parseBody(VerifyRequest, body);
        if (!request.ok) return request.reply;
        const { result } = await step(request.value, current, assistantText(request.value.response), signal);
        const fields = {
          ...(result.reward_components ? { reward_components: result.reward_components } : {}),
          ...(result.answer !== undefined ? { extracted_answer: result.answer } : {}),
        };
        // What the environment reports goes beside the reward, as NeMo Gym's verifiers return their own
        // fields (code_gen's `result`, `extracted_model_code`); the request's keys and the reward win.
        return ok({ ...result.fields, ...request.value, reward: result.reward, ...fields });
      }),
      'POST /reset': session(async (body, current, signal) => {
        const request = parseBody(RunRequest, body);
        if (!request.ok) return request.reply;
        const { observation } = await reset(request.value, current, signal);
        return ok({ observation: observation.length === 0 ? null : observation.map((message) => message.content).join('\n'), info: {} });
      }),
      'POST /step': session(async (body, current, signal) => {
        const request = parseBody(VerifyRequest, body);
        if (!request.ok) return request.reply;
        const { result, observation } = await step(request.value, current, actionText(request.value.response), signal);
        const { truncated } = result;
        if (result.terminated || truncated) store.delete(current.id);
        return ok({ observation, reward: result.reward, terminated: result.terminated, truncated, info: {} });
      }),
      'POST /close': session(async (_body, current) => {
        store.delete(current.id);
        return ok({});
      }),
      'POST /aggregate_metrics': aggregateMetricsRoute(),
      'GET /reverify_mode': () => ok('unsupported'),
    },
    fallback: (method, path) => (method === 'POST' ? toolRoutes.get(path) : undefined),
  });
}
