import { join } from 'node:path';
import type { BenchLine } from './bench-result.js';
import { asynchrony } from './sched/asynchrony.js';
import { PROFILE, REPLICAS } from './sched/bench-fleet.js';
import { concurrencySweep } from './sched/concurrency-sweep.js';
import { grpoGroups } from './sched/grpo-groups.js';
import { httpCheck } from './sched/http-check.js';
import { routing } from './sched/routing.js';

const docs = new URL('../docs/', import.meta.url).pathname;

/**
 * `npm run bench -- sched`: scheduling measured on the simulated fleet (issue 26). Every run is gymnast's
 * own scheduler, episode loop, policy and router against `REPLICAS` simulated vLLM replicas, in this
 * process on a virtual clock (`SimFleetClient`: the same code as over HTTP but the socket), so simulated
 * time is exact and nothing lags; the ratios are of simulated seconds and tokens. Not run in CI.
 */
export async function schedulingOnFleet(): Promise<BenchLine[]> {
  process.stdout.write(
    `sched: ${REPLICAS} × ${PROFILE.name} replicas (max_num_seqs ${PROFILE.engine.maxNumSeqs}, ${PROFILE.engine.numGpuBlocks} KV blocks of ${PROFILE.engine.blockSize}), in process on a virtual clock: simulated time is exact, no release lag\n`,
  );
  const only = new Set((process.env.SCHED ?? 'asynchrony,routing,concurrency,groups,http').split(','));
  const lines: BenchLine[] = [];
  if (only.has('asynchrony')) lines.push(...(await asynchrony(join(docs, 'sched-utilization.svg'))));
  if (only.has('routing')) lines.push(...(await routing(join(docs, 'sched-routing.svg'))));
  if (only.has('concurrency')) lines.push(...(await concurrencySweep()));
  if (only.has('groups')) lines.push(...(await grpoGroups()));
  if (only.has('http')) lines.push(...(await httpCheck()));
  return lines;
}
