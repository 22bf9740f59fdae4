import type { AgentAggregate } from '../metrics/index.js';
import { AggregateReader, type AggregateReaderOptions } from './aggregate-reader.js';
import { readRunFiles } from './result-files.js';

export interface AggregateSources extends Pick<AggregateReaderOptions, 'materialized' | 'answerKey' | 'rolloutInfos'> {
  /** Result files: one run, or its shards. A rollout key may appear in only one place. */
  results: readonly string[];
  /** Failure sidecars: a rollout there counts as failed once, and not at all if it also succeeded. */
  failures?: readonly string[];
}

/**
 * NeMo Gym's aggregate metrics per agent, with NeMo RL's rollout metrics, over result files streamed
 * row by row (errors name file:line). Memory holds a few numbers per rollout, never the rows.
 */
export async function aggregateFiles(sources: AggregateSources, signal?: AbortSignal): Promise<AgentAggregate[]> {
  const reader = new AggregateReader({ ...sources, ...(signal ? { signal } : {}) });
  await readRunFiles(sources, [reader], signal);
  return reader.finish();
}
