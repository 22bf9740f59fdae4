import { z } from 'zod';
import { InvalidRowError } from '../../core/errors/invalid-row-error.js';
import { RewardComponentsError } from '../../core/errors/reward-components-error.js';
import type { JsonRoute } from '../http-server/json-server.js';
import { aggregateVerifyResponses, AggregateMetricsRequest, type AggregateMetrics } from './aggregate-verify-responses.js';
import { isJudgeError } from './judge-error.js';
import { makeDefinition, ok, parseBody, type ResourcesServerDefinition, type ReverifyMode } from './resources-server-definition.js';
import { responsesToolOf, type ResourcesTool } from './resources-tool.js';
import { VerifiedResponse } from './response-text.js';
import { sessionCookieName, withSession } from './session-routes.js';
import { SessionStore, type ResourcesSession } from './session-store.js';

type Awaitable<T> = T | Promise<T>;

/** The fields every run body has (NeMo Gym's `BaseRunRequest`); rows add their own. */
export const RunRequest = z.looseObject({ responses_create_params: z.looseObject({}) });
export type RunRequest = z.infer<typeof RunRequest>;
/** NeMo Gym's `BaseVerifyRequest`: the run body plus the agent's final `response`. */
export const VerifyRequest = RunRequest.extend({ response: VerifiedResponse });
export type VerifyRequest = z.infer<typeof VerifyRequest>;

/** What `verify` decides: the reward, its named parts (they must add up to it), and fields to add to the reply. */
export const VerifyResult = z.looseObject({
  reward: z.number().refine(Number.isFinite, 'reward must be a finite number'),
  reward_components: z.record(z.string(), z.number()).optional(),
});
export type VerifyResult = z.input<typeof VerifyResult>;

export interface ResourcesServerSpec<State, Row extends Record<string, unknown>> {
  /** The server's name in the NeMo Gym config (the cookie's second half). */
  name: string;
  /** The first half of the session cookie's name: NeMo Gym uses the Python class name (default `SimpleResourcesServer`). */
  className?: string;
  /** A new session's state (default undefined). */
  initialState?: () => State;
  /** The dataset fields this server reads, checked on `/seed_session` and `/verify` (422 otherwise), defaults filled in. */
  rowSchema?: z.ZodType<Row>;
  /** One `POST /<name>` per tool; make them with `defineTool`. */
  tools?: Readonly<Record<string, ResourcesTool<State>>>;
  /** Given the whole run body before the rollout starts (NeMo Gym's agents post it to `/seed_session`). */
  seedSession?(body: Row & RunRequest, session: ResourcesSession<State>): Awaitable<void>;
  /** Scores the finished rollout; a `JudgeError` thrown here is a judge failure, not a reward of 0. */
  verify(body: Row & VerifyRequest, session: ResourcesSession<State>): Awaitable<VerifyResult>;
  /** Replaces gymnast's NeMo Gym-shaped aggregate (e.g. to add per-server metrics). */
  aggregateMetrics?(verifyResponses: readonly Record<string, unknown>[]): Awaitable<AggregateMetrics>;
  /** Default: `stateless` for a server with no tools and no seed_session (verify reads the body only), else `unsupported`. */
  reverifyMode?: ReverifyMode;
  /** Sessions kept before the least recently used is forgotten (see `SessionStore`). */
  maxSessions?: number;
}

/**
 * A NeMo Gym resources server (`SimpleResourcesServer`): `POST /seed_session`, one `POST /<tool>`
 * per tool, `POST /verify` with the judge failsafe, `POST /aggregate_metrics` and
 * `GET /reverify_mode`, with per-session state behind NeMo Gym's session cookie.
 */
export function defineResourcesServer<State = undefined, Row extends Record<string, unknown> = Record<string, unknown>>(
  spec: ResourcesServerSpec<State, Row>,
): ResourcesServerDefinition {
  const tools = spec.tools ?? {};
  const cookieName = sessionCookieName(spec.className ?? 'SimpleResourcesServer', spec.name);
  const reverifyMode = spec.reverifyMode ?? (Object.keys(tools).length === 0 && !spec.seedSession ? 'stateless' : 'unsupported');
  const rowSchema = spec.rowSchema ?? z.looseObject({});
  const readRow = <Base extends z.ZodType>(base: Base, body: unknown) => parseBody(z.intersection(base, rowSchema) as z.ZodType<Row & z.infer<Base>>, body);
  const routesFor = () => {
    const store = new SessionStore<State>(spec.initialState ?? (() => undefined as State), spec.maxSessions);
    const session = (handler: Parameters<typeof withSession<State>>[2]): JsonRoute => withSession(store, cookieName, handler);
    const toolRoutes = new Map(
      Object.entries(tools).map(([name, tool]) => [
        `/${name}`,
        session(async ({ body }, current) => {
          const outcome = await tool.call(body, current);
          return outcome.ok ? ok(outcome.output) : ok({ detail: outcome.detail }, 422);
        }),
      ]),
    );
    return {
      routes: {
        'POST /seed_session': session(async ({ body }, current) => {
          const row = readRow(RunRequest, body);
          if (!row.ok) return row.reply;
          await spec.seedSession?.(row.value, current);
          return ok({});
        }),
        'POST /verify': session(async ({ body }, current) => {
          const row = readRow(VerifyRequest, body);
          return row.ok ? ok(await verifyWithFailsafe(spec, row.value, body as Record<string, unknown>, current)) : row.reply;
        }),
        // These two read no session; opening one for them would fill the store with empty sessions.
        'POST /aggregate_metrics': aggregateMetricsRoute(spec.aggregateMetrics),
        'GET /reverify_mode': () => ok(reverifyMode),
      },
      fallback: (method: string, path: string) => (method === 'POST' ? toolRoutes.get(path) : undefined),
    };
  };
  const responsesTools = Object.entries(tools).map(([name, tool]) => responsesToolOf(name, tool as ResourcesTool<unknown>));
  return makeDefinition({ name: spec.name, cookieName, tools: responsesTools }, routesFor);
}

/** `POST /aggregate_metrics {verify_responses}` → NeMo Gym's `AggregateMetrics`. */
export function aggregateMetricsRoute(
  compute: ResourcesServerSpec<unknown, Record<string, unknown>>['aggregateMetrics'] = aggregateVerifyResponses,
): JsonRoute {
  return async ({ body }) => {
    const request = parseBody(AggregateMetricsRequest, body);
    if (!request.ok) return request.reply;
    try {
      return ok(await compute(request.value.verify_responses));
    } catch (error) {
      if (error instanceof InvalidRowError) return { status: 422, body: { detail: [invalidRowDetail(error)] } };
      throw error;
    }
  };
}

/** FastAPI's shape for a row it cannot take: `verify_responses[2]` and `reward` become `loc: ['body', 'verify_responses', 2, 'reward']`. */
function invalidRowDetail(error: InvalidRowError): { type: string; loc: (string | number)[]; msg: string } {
  const where = [...error.where.matchAll(/[^[\].]+/g)].map(([part]) => (/^\d+$/.test(part) ? Number(part) : part));
  return { type: error.kind, loc: ['body', ...where, ...(error.field ? error.field.split('.') : [])], msg: error.reason };
}

/**
 * NeMo Gym's `judge_failsafe` around verify: the reply echoes the body as sent with the reward and the
 * verifier's fields; a judge that failed gives reward 0 marked `judge_failed`, so the row goes to the
 * failure sidecar. Components that do not add up to the reward are the server's bug (a 500). The
 * schema's defaults are not echoed: NeMo Gym's verify replies declare no request field but `response`
 * and `responses_create_params`, so a default would read as a field the verifier reported.
 */
async function verifyWithFailsafe<State, Row extends Record<string, unknown>>(
  spec: ResourcesServerSpec<State, Row>,
  body: Row & VerifyRequest,
  sent: Record<string, unknown>,
  session: ResourcesSession<State>,
): Promise<Record<string, unknown>> {
  let result: z.infer<typeof VerifyResult>;
  try {
    result = VerifyResult.parse(await spec.verify(body, session));
  } catch (error) {
    if (!isJudgeError(error)) throw error;
    return { ...sent, reward: 0, _ng_failure_class: 'judge_failed', _ng_failure_judge_error: error.message };
  }
  const components = result.reward_components;
  if (components) {
    const sum = Object.values(components).reduce((total, value) => total + value, 0);
    if (Math.abs(sum - result.reward) > 1e-9 * Math.max(1, Math.abs(result.reward))) throw new RewardComponentsError(spec.name, result.reward, components);
  }
  return { ...sent, ...result };
}
