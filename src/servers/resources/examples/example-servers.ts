import type { ResourcesServerDefinition } from '../resources-server-definition.js';
import { blackjack } from './blackjack.js';
import { exampleMultiStep } from './example-multi-step.js';
import { exampleMultiTurnGymnasium } from './example-multi-turn-gymnasium.js';
import { exampleSessionStateMgmt } from './example-session-state-mgmt.js';
import { exampleSingleToolCall } from './example-single-tool-call.js';
import { exampleToolCallMultireward } from './example-tool-call-multireward.js';
import { mcqa } from './mcqa.js';
import { stringMatch } from './string-match.js';

/** NeMo Gym's example resources servers ported onto the SDK, by NeMo Gym's names. */
export const exampleServers: Readonly<Record<string, { description: string; create(): ResourcesServerDefinition }>> = {
  example_single_tool_call: { description: 'get_weather always answers "cold"; reward 1', create: exampleSingleToolCall },
  example_session_state_mgmt: {
    description: 'a counter per session seeded with initial_count; reward 1 when it ends at expected_count',
    create: exampleSessionStateMgmt,
  },
  string_match: { description: 'extracts an answer (boxed, final_answer, last_line, full_response) and matches expected_answer', create: stringMatch },
  mcqa: { description: "a multiple-choice letter (boxed, lenient, Answer:, or the row's template regex) against expected_answer", create: mcqa },
  example_multi_turn_gymnasium: {
    description: 'gymnasium: replays follow_ups, then checks expected_answer is in the last reply',
    create: exampleMultiTurnGymnasium,
  },
  blackjack: { description: 'gymnasium: hit or stand with <action>…</action>; +1 win, 0 draw, −1 loss', create: blackjack },
  example_tool_call_multireward: {
    description: 'one get_weather call scored on correctness, schema_valid and format components (GDPO)',
    create: exampleToolCallMultireward,
  },
  example_multi_step: { description: 'synonym value lookups, then extract_synonym_values checked against expected_synonym_values', create: exampleMultiStep },
};
