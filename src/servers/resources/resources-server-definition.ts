import { z } from 'zod';
import type { ResponsesTool } from '../../core/responses-items.js';
import type { ListenOptions } from '../http-server/http-server-core.js';
import { JsonServer, type JsonReply, type JsonRoute } from '../http-server/json-server.js';
import { validationDetail } from './resources-tool.js';

/** `GET /reverify_mode`: whether `gym eval reverify` may run `/verify` again on a stored result. */
export const ReverifyMode = z.enum(['stateless', 'unsupported', 'unknown']);
export type ReverifyMode = z.infer<typeof ReverifyMode>;

export interface ResourcesServeOptions extends ListenOptions {
  /** When set, every request must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  maxBodyBytes?: number;
}

/** Routes for one server instance: each `createServer` call makes fresh sessions. */
export interface ResourcesRoutes {
  routes: Record<string, JsonRoute>;
  fallback?: (method: string, path: string) => JsonRoute | undefined;
}

/** A NeMo Gym resources server, defined; `createServer` makes an instance to start. */
export interface ResourcesServerDefinition {
  readonly name: string;
  /** The session cookie's name, `"<className>___<name>"`. */
  readonly cookieName: string;
  /** The tools as Responses-API definitions, for `responses_create_params.tools`. */
  readonly tools: readonly ResponsesTool[];
  /** Every endpoint, as `"METHOD /path"`. */
  readonly endpoints: readonly string[];
  createServer(options?: ResourcesServeOptions): JsonServer;
}

export function makeDefinition(
  fields: Omit<ResourcesServerDefinition, 'createServer' | 'endpoints'>,
  routesFor: () => ResourcesRoutes,
): ResourcesServerDefinition {
  const sample = routesFor();
  return {
    ...fields,
    endpoints: [...Object.keys(sample.routes), ...fields.tools.map((tool) => `POST /${tool.name}`)],
    createServer: (options = {}) => new JsonServer({ ...options, ...routesFor() }),
  };
}

export const ok = (body: unknown, status = 200): JsonReply => ({ status, body });

/**
 * Parses a request body as FastAPI would a pydantic model: defaults filled in, unknown fields kept,
 * and 422 `{detail: [...]}` when it does not fit.
 */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): { ok: true; value: T } | { ok: false; reply: JsonReply } {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, reply: { status: 422, body: { detail: validationDetail(parsed.error) } } };
}
