import type { ResourcesServerDefinition } from '../resources-server-definition.js';
import { exampleSessionStateMgmt } from './example-session-state-mgmt.js';
import { exampleSingleToolCall } from './example-single-tool-call.js';

/** NeMo Gym's example resources servers ported onto the SDK, by NeMo Gym's names. */
export const exampleServers: Readonly<Record<string, { description: string; create(): ResourcesServerDefinition }>> = {
  example_single_tool_call: { description: 'get_weather always answers "cold"; reward 1', create: exampleSingleToolCall },
  example_session_state_mgmt: { description: 'a counter per session seeded with initial_count; reward 1 when it ends at expected_count', create: exampleSessionStateMgmt },
};
