import { z } from 'zod';
import { defineResourcesServer } from '../define-resources-server.js';
import type { ResourcesServerDefinition } from '../resources-server-definition.js';
import { defineTool } from '../resources-tool.js';

/** NeMo Gym's `example_single_tool_call`: `get_weather` always says it is cold; every rollout scores 1. */
export function exampleSingleToolCall(): ResourcesServerDefinition {
  return defineResourcesServer({
    name: 'example_single_tool_call',
    className: 'SimpleWeatherResourcesServer',
    tools: {
      get_weather: defineTool({
        parameters: z.object({ city: z.string().describe('') }),
        handler: ({ city }) => ({ city, weather_description: `The weather in ${city} is cold.` }),
      }),
    },
    verify: () => ({ reward: 1 }),
  });
}
