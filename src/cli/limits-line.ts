import type { AgentEpisode } from '../servers/config/config-run.js';

/**
 * The limits rollouts run by, where gymnast bounds what NeMo RL and NeMo Gym leave unbounded, so a
 * reader of a run's output knows them without the command line (the README says how to lift them).
 */
export function limitsLine(concurrency: number | 'auto', episode: Pick<AgentEpisode, 'maxTurns' | 'maxSeqLen' | 'onMaxTokens'>): string {
  return [
    `limits: --max-turns ${episode.maxTurns} (NeMo RL: unbounded)`,
    `--concurrency ${concurrency} (NeMo Gym: unbounded)`,
    `--max-seq-len ${episode.maxSeqLen}`,
    `--on-max-tokens ${episode.onMaxTokens ?? 'continue'}`,
  ].join(', ');
}
