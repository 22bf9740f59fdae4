import type { TokenDecoder } from '../../core/token-decoder.js';
import { embeddedModelDirectory } from '../../policy/embedded/embedded-policy.js';
import { loadHfTokenizer } from '../../tokens/hf-tokenizer.js';
import { RolloutLister } from '../../viewer/rollout-views.js';
import { RunIndex } from '../../viewer/run-index.js';
import type { ViewedRun } from './run-files.js';
import type { ServedRun } from './viewer-api.js';

export interface ServedRunsOptions {
  /** Decodes every run's tokens (`--tokenizer DIR`); without it, runs of the embedded model use its tokenizer (but for rows an agent server sampled) and others show ids only. */
  tokenizer?: TokenDecoder;
  /** How long one rollouts request may scan lines for a text search (default 2 s). */
  searchBudgetMs?: number;
}

/**
 * The runs as the API answers for them, by id: each with an index not yet read (the caller refreshes
 * it, and the server follows it) and the decoder of its tokens. What the server serves and a bundle writes.
 */
export function servedRuns(runs: readonly ViewedRun[], options: ServedRunsOptions = {}): Map<string, ServedRun> {
  const served = new Map<string, ServedRun>();
  const embedded = lazy(() => loadHfTokenizer(embeddedModelDirectory));
  for (const run of runs) {
    const index = new RunIndex(run);
    const remote = new Set(run.remoteAgents);
    // An agent server's rows were sampled by its own model: only a tokenizer the user names decodes them.
    const decoder = async (agent: string) => (options.tokenizer ? options.tokenizer : run.policy === 'embedded' && !remote.has(agent) ? embedded() : undefined);
    const lister = new RolloutLister(index, { ...(options.searchBudgetMs === undefined ? {} : { searchBudgetMs: options.searchBudgetMs }) });
    served.set(run.id, { run, index, lister, decoder });
  }
  return served;
}

/** Calls `load` once, on first use. */
function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}
