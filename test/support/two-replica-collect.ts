// The run the timing specs collect: arithmetic tasks through `gymnast collect` against two replicas
// of the test inference server, so rows record which replica served each turn.

import { fileURLToPath } from 'node:url';
import type { InferenceServer } from '../../src/testing/index.js';
import { startServers } from './loopback-model.js';
import { qwen3Directory } from './qwen3.js';
import { type CliRun, gymnast } from './run-cli.js';

const input = fileURLToPath(new URL('../../examples/arithmetic.jsonl', import.meta.url));

/** Two replicas of the test server; their answers (the seed mod 100) are mostly wrong, so the arithmetic environment asks again: most rollouts take two turns. */
export function startTwoReplicas(): Promise<InferenceServer[]> {
  return startServers(2, { respond: ({ seed }) => `${seed % 100}` });
}

/** `gymnast collect` of 4 tasks × 3 rollouts, 4 at once, against both replicas, written to `output`. */
export function twoReplicaCollect(replicas: readonly InferenceServer[], output: string): Promise<CliRun> {
  return gymnast(
    'collect',
    ...['-i', input, '-o', output, '--limit', '4', '--num-repeats', '3', '--concurrency', '4'],
    ...['--policy', 'vllm-completions', '--base-url', replicas[0]!.url, '--base-url', replicas[1]!.url, '--tokenizer', qwen3Directory, '--max-tokens', '8'],
  );
}
