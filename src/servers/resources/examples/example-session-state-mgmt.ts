import { z } from 'zod';
import { defineResourcesServer } from '../define-resources-server.js';
import type { ResourcesServerDefinition } from '../resources-server-definition.js';
import { defineTool } from '../resources-tool.js';
import type { ResourcesSession } from '../session-store.js';

/** The session's counter; undefined until seeded or first used (NeMo Gym's `setdefault`). */
interface Counter {
  count?: number;
}

const Row = z.object({ initial_count: z.number().int().optional(), expected_count: z.number().int().optional() });

/**
 * NeMo Gym's `example_session_state_mgmt`: a counter per session, started at `initial_count` by
 * `/seed_session`, tools `increment_counter(count)` and `get_counter_value()`, and reward 1 when the
 * counter ends at `expected_count`. As in NeMo Gym, a session that never touched the counter scores 0.
 */
export function exampleSessionStateMgmt(): ResourcesServerDefinition {
  const current = (session: ResourcesSession<Counter>) => (session.state.count ??= 0);
  return defineResourcesServer<Counter, z.infer<typeof Row>>({
    name: 'example_session_state_mgmt',
    className: 'StatefulCounterResourcesServer',
    initialState: () => ({}),
    rowSchema: Row,
    seedSession: (body, session) => {
      session.state.count ??= body.initial_count;
    },
    tools: {
      increment_counter: defineTool({
        parameters: z.object({ count: z.number().int().describe('') }),
        handler: ({ count }, session: ResourcesSession<Counter>) => {
          session.state.count = current(session) + count;
          return { success: true };
        },
      }),
      get_counter_value: defineTool({ parameters: z.object({}), handler: (_args, session: ResourcesSession<Counter>) => ({ count: current(session) }) }),
    },
    verify: (body, session) => ({ reward: session.state.count !== undefined && session.state.count === body.expected_count ? 1 : 0 }),
  });
}
