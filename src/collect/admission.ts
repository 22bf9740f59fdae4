import { readOwnMaterializedRow } from '../core/row-reader.js';
import type { MaterializedRow } from '../core/result-row.js';
import type { Agent } from './agent.js';
import { jsonRows } from './result-files.js';
import type { ResumeState } from './resume-state.js';
import type { RowPlanner } from './row-planner.js';

/** One rollout to run: its planned row (with its attempt stamped) and who runs it. */
export interface CollectJob {
  row: MaterializedRow;
  agent: Agent;
}

/**
 * The rollouts left to run, read back from the materialized inputs (the source of truth) one at a
 * time as the scheduler asks: done keys are skipped, terminal or exhausted failures given up on, and
 * failed ones run again as their next attempt (`_ng_attempt_index`, stamped only when > 0).
 */
export async function* admit(materialized: string, planner: RowPlanner, state: ResumeState, maxAttempts: number): AsyncGenerator<CollectJob> {
  for await (const { value, where } of jsonRows(materialized)) {
    const planned = readOwnMaterializedRow(value, where);
    const decision = state.decide(planned, maxAttempts);
    if (decision.kind !== 'run') continue;
    const row = decision.attempt > 0 ? { ...planned, _ng_attempt_index: decision.attempt } : planned;
    yield { row, agent: planner.agent(row.agent_ref.name)! };
  }
}
