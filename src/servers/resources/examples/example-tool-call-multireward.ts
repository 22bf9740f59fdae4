import { z } from 'zod';
import { defineResourcesServer } from '../define-resources-server.js';
import type { ResourcesServerDefinition } from '../resources-server-definition.js';
import { defineTool } from '../resources-tool.js';

/** The one call the model should make, e.g. `{"name": "get_weather", "arguments": {"city": "San Francisco"}}`. */
const Row = z.object({ expected_call: z.record(z.string(), z.unknown()).default({}) });

const FunctionCall = z.looseObject({ type: z.literal('function_call'), name: z.string(), arguments: z.unknown() });
const ToolDefinition = z.looseObject({ name: z.string().optional(), parameters: z.looseObject({ required: z.array(z.string()).nullish() }).nullish() });

interface PredictedCall {
  name: string;
  arguments: unknown;
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A call's arguments as an object, and whether they were one (an object, or a string of JSON that is one). */
function parseArguments(value: unknown): [JsonObject, boolean] {
  if (isObject(value)) return [value, true];
  if (typeof value !== 'string') return [{}, false];
  try {
    const parsed: unknown = JSON.parse(value);
    return isObject(parsed) ? [parsed, true] : [{}, false];
  } catch {
    return [{}, false];
  }
}

function functionCalls(output: readonly unknown[]): PredictedCall[] {
  return output.flatMap((item) => {
    const call = FunctionCall.safeParse(item);
    return call.success ? [{ name: call.data.name, arguments: call.data.arguments }] : [];
  });
}

function requiredParameters(tools: unknown, toolName: string): string[] {
  for (const tool of Array.isArray(tools) ? tools : []) {
    const parsed = ToolDefinition.safeParse(tool);
    if (parsed.success && parsed.data.name === toolName) return parsed.data.parameters?.required ?? [];
  }
  return [];
}

/** Python's `==` on JSON values: deep, key order aside (and 1 == 1.0, which JSON numbers already are). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  if (isObject(a) && isObject(b))
    return Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((key) => key in b && jsonEqual(a[key], b[key]));
  return a === b;
}

/** The name matches and every expected argument has its value (extra arguments are fine). */
function callMatches(predicted: PredictedCall, expected: JsonObject): boolean {
  if (Object.keys(expected).length === 0 || predicted.name !== expected.name) return false;
  const [args] = parseArguments(predicted.arguments);
  const expectedArgs = isObject(expected.arguments) ? expected.arguments : {};
  return Object.entries(expectedArgs).every(([key, value]) => jsonEqual(args[key] ?? null, value)); // a missing argument reads as null (Python's dict.get)
}

/**
 * NeMo Gym's `example_tool_call_multireward`, the GDPO example: one expected `get_weather` call scored
 * on three 0/1 `reward_components` that add up to `reward`: `correctness` (some call has the expected
 * name and arguments), `schema_valid` (the first call's arguments are an object with every required
 * parameter of its tool) and `format` (exactly one call and no message). Each is also a top-level
 * field, so aggregate metrics profile them, with `predicted_calls` (arguments parsed).
 */
export function exampleToolCallMultireward(): ResourcesServerDefinition {
  return defineResourcesServer<undefined, z.infer<typeof Row>>({
    name: 'example_tool_call_multireward',
    className: 'ToolCallMultiRewardResourcesServer',
    rowSchema: Row,
    tools: {
      // Not an endpoint of NeMo Gym's server (its agent config supplies it); the answer is the one its example rollouts show.
      get_weather: defineTool({
        description: 'Get the current weather for a city.',
        parameters: z.object({ city: z.string().describe('The city to get the weather for.') }),
        handler: ({ city }) => ({ city, weather_description: `The weather in ${city} is sunny.` }),
      }),
    },
    // verify reads the body only, as NeMo Gym declares (REVERIFY_MODE stateless); the tool keeps no state.
    reverifyMode: 'stateless',
    verify: (body) => {
      const calls = functionCalls(body.response.output);
      const hasMessage = body.response.output.some((item) => item.type === 'message');
      const format = calls.length === 1 && !hasMessage ? 1 : 0;
      let schemaValid = 0;
      if (calls.length > 0) {
        const [parsed, valid] = parseArguments(calls[0]!.arguments);
        schemaValid = valid && requiredParameters(body.responses_create_params.tools, calls[0]!.name).every((key) => key in parsed) ? 1 : 0;
      }
      const correctness = calls.some((call) => callMatches(call, body.expected_call)) ? 1 : 0;
      return {
        reward: correctness + schemaValid + format,
        reward_components: { correctness, schema_valid: schemaValid, format },
        correctness,
        schema_valid: schemaValid,
        format,
        predicted_calls: calls.map((call) => ({ name: call.name, arguments: parseArguments(call.arguments)[0] })),
      };
    },
  });
}
