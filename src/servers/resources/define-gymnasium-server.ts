import { z } from 'zod';
import { makeDefinition, ok, parseBody, type ResourcesServerDefinition } from './resources-server-definition.js';
import { aggregateMetricsRoute, RunRequest, VerifyRequest } from './define-resources-server.js';
import { sessionCookieName, withSession } from './session-routes.js';
import { SessionStore, type ResourcesSession } from './session-store.js';

type Awaitable<T> = T | Promise<T>;

/** NeMo Gym's `EnvResetResponse`. */
export const GymnasiumResetResult = z.object({ observation: z.string().nullable().default(null), info: z.record(z.string(), z.unknown()).default({}) });
export type GymnasiumResetResult = z.input<typeof GymnasiumResetResult>;

/** NeMo Gym's `EnvStepResponse`; `info.tool_outputs` may carry `[{call_id, output}]` for the agent. */
export const GymnasiumStepResult = z.object({
  observation: z.string().nullable().default(null),
  reward: z.number().refine(Number.isFinite, 'reward must be a finite number').default(0),
  terminated: z.boolean().default(false),
  truncated: z.boolean().default(false),
  info: z.record(z.string(), z.unknown()).default({}),
});
export type GymnasiumStepResult = z.input<typeof GymnasiumStepResult>;

export interface GymnasiumServerSpec<State> {
  name: string;
  /** The cookie's first half (default `GymnasiumServer`, NeMo Gym's base class; its servers use their own class name). */
  className?: string;
  /** A session's state before `reset` (default undefined). */
  initialState?: () => State;
  /** A new episode from the run body (`responses_create_params` and the row's fields). */
  reset(body: RunRequest, session: ResourcesSession<State>): Awaitable<GymnasiumResetResult>;
  /** One model turn: the body holds the row and the turn's `response` (read the action with `actionText`). */
  step(body: VerifyRequest, session: ResourcesSession<State>): Awaitable<GymnasiumStepResult>;
  /** Releases what a session holds; called on `/close`, and when a step terminates or truncates. */
  close?(session: ResourcesSession<State>): Awaitable<void>;
  maxSessions?: number;
}

/**
 * NeMo Gym's gymnasium-style resources server (`GymnasiumServer`, driven by `gymnasium_agent`):
 * `POST /reset`, `POST /step`, `POST /close`, plus `/seed_session`, `/aggregate_metrics` and
 * `/reverify_mode` from the base server. There is no `/verify`: rewards come from the steps.
 */
export function defineGymnasiumServer<State = undefined>(spec: GymnasiumServerSpec<State>): ResourcesServerDefinition {
  const cookieName = sessionCookieName(spec.className ?? 'GymnasiumServer', spec.name);
  const routesFor = () => {
    const store = new SessionStore<State>(spec.initialState ?? (() => undefined as State), spec.maxSessions);
    const close = async (session: ResourcesSession<State>) => {
      await spec.close?.(session);
      store.delete(session.id);
    };
    return {
      routes: {
        'POST /seed_session': withSession(store, cookieName, () => ok({})),
        'POST /reset': withSession(store, cookieName, async ({ body }, session) => {
          const request = parseBody(RunRequest, body);
          if (!request.ok) return request.reply;
          return ok(GymnasiumResetResult.parse(await spec.reset(request.value, session)));
        }),
        'POST /step': withSession(store, cookieName, async ({ body }, session) => {
          const request = parseBody(VerifyRequest, body);
          if (!request.ok) return request.reply;
          const result = GymnasiumStepResult.parse(await spec.step(request.value, session));
          // NeMo Gym closes the session when the episode ends, so finished games do not pile up.
          if (result.terminated || result.truncated) await close(session);
          return ok(result);
        }),
        'POST /close': withSession(store, cookieName, async (_request, session) => {
          await close(session);
          return ok({});
        }),
        'POST /aggregate_metrics': aggregateMetricsRoute(),
        'GET /reverify_mode': () => ok('unsupported'),
      },
    };
  };
  return makeDefinition({ name: spec.name, cookieName, tools: [] }, routesFor);
}
