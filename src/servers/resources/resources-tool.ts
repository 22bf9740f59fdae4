import { z } from 'zod';
import type { ResponsesTool } from '../../core/responses-items.js';
import type { ResourcesSession } from './session-store.js';

type Awaitable<T> = T | Promise<T>;

/** What a tool is given to define it: its arguments as a zod object, and what it does with them. */
export interface ToolDefinition<State, Parameters extends z.ZodObject> {
  description?: string;
  parameters: Parameters;
  /** Strict function calling (OpenAI's `strict`); NeMo Gym's examples all set it (default true). */
  strict?: boolean;
  /** The tool's answer, sent back as JSON (the model reads the raw body). */
  handler(args: z.infer<Parameters>, session: ResourcesSession<State>): Awaitable<unknown>;
}

/** A tool with its argument types erased, ready to serve: `call` validates before it runs. */
export interface ResourcesTool<State> {
  readonly description: string;
  readonly strict: boolean;
  readonly parameters: z.ZodObject;
  call(args: unknown, session: ResourcesSession<State>): Promise<ToolOutcome>;
}

/** FastAPI's answer to a body that fails its model: 422 with one entry per problem. */
export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
}

export type ToolOutcome = { ok: true; output: unknown } | { ok: false; detail: ValidationDetail[] };

/** Declares one tool of a resources server (its argument types flow from `parameters` into `handler`). */
export function defineTool<State, Parameters extends z.ZodObject>(definition: ToolDefinition<State, Parameters>): ResourcesTool<State> {
  return {
    description: definition.description ?? '',
    strict: definition.strict ?? true,
    parameters: definition.parameters,
    async call(args, session) {
      const parsed = definition.parameters.safeParse(args ?? {});
      if (!parsed.success) return { ok: false, detail: validationDetail(parsed.error) };
      return { ok: true, output: await definition.handler(parsed.data, session) };
    },
  };
}

/** zod issues in FastAPI's words, so a model trained against NeMo Gym reads the same kind of error. */
export function validationDetail(error: z.ZodError): ValidationDetail[] {
  return error.issues.map((issue) => ({
    type: issue.code,
    loc: ['body', ...issue.path.map((key) => (typeof key === 'number' ? key : String(key)))],
    msg: issue.message,
  }));
}

/** The tool as a Responses-API tool definition, for `responses_create_params.tools`. */
export function responsesToolOf(name: string, tool: ResourcesTool<unknown>): ResponsesTool {
  const { $schema: _schema, ...parameters } = z.toJSONSchema(tool.parameters, { override: asPydanticWrites }) as Record<string, unknown>;
  return { type: 'function', name, description: tool.description, parameters, strict: tool.strict };
}

/**
 * The schema as pydantic writes it, so a tool list equals the one in NeMo Gym's datasets: an integer
 * without zod's safe-integer bounds, and an object's `required` always present (OpenAI's strict mode
 * wants it, even empty).
 */
function asPydanticWrites({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
  if (jsonSchema.type === 'integer' && jsonSchema.minimum === Number.MIN_SAFE_INTEGER && jsonSchema.maximum === Number.MAX_SAFE_INTEGER) {
    delete jsonSchema.minimum;
    delete jsonSchema.maximum;
  }
  if (jsonSchema.type === 'object' && jsonSchema.properties !== undefined && jsonSchema.required === undefined) jsonSchema.required = [];
}
