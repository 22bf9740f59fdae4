import { z } from 'zod';
import { EnvironmentError } from '../../../core/errors/environment-error.js';
import { defineGymnasiumServer } from '../define-gymnasium-server.js';
import type { ResourcesServerDefinition } from '../resources-server-definition.js';
import { actionText } from '../response-text.js';

/** The row's `verifier_metadata` fields, read from the step body as NeMo Gym's `metadata.get` does. */
const Row = z.looseObject({ follow_ups: z.array(z.string()).default([]), expected_answer: z.string().default('') });

/** How many follow-ups this session's episode has been sent. */
interface Turns {
  turn: number;
}

const name = 'example_multi_turn_gymnasium';

/**
 * NeMo Gym's `example_multi_turn_gymnasium` (`ExampleMultiTurnEnv`): after each model turn the next of
 * the row's `follow_ups` comes back as the observation with reward 0; once they are used up, the step
 * ends the episode with reward 1 when `expected_answer` is in the last reply (case-insensitive), else 0.
 */
export function exampleMultiTurnGymnasium(): ResourcesServerDefinition {
  return defineGymnasiumServer<Turns>({
    name,
    className: 'ExampleMultiTurnEnv',
    initialState: () => ({ turn: 0 }),
    reset: (_body, session) => {
      session.state.turn = 0;
      return { observation: null, info: {} };
    },
    step: (body, session) => {
      const row = Row.safeParse(body);
      if (!row.success) throw new EnvironmentError(name, `bad row: ${z.prettifyError(row.error)}`);
      const { follow_ups: followUps, expected_answer: expected } = row.data;
      const turn = session.state.turn;
      if (turn < followUps.length) {
        session.state.turn = turn + 1;
        return { observation: followUps[turn]!, reward: 0, terminated: false, truncated: false, info: {} };
      }
      const found = expected !== '' && actionText(body.response).toLowerCase().includes(expected.toLowerCase());
      return { observation: null, reward: found ? 1 : 0, terminated: true, truncated: false, info: {} };
    },
  });
}
