import type { BenchLine } from '../bench-result.js';
import { REPLICAS, startBenchFleet } from './bench-fleet.js';
import { workloadTask } from './fleet-workload.js';
import { runWorkload } from './run-workload.js';

const PROMPTS = 64;
const GROUP = 16;
const PROMPT_TOKENS = 2000;
const CONCURRENCY = 256;

export const groupsWorkload = `${PROMPTS} prompts of ~${PROMPT_TOKENS} tokens × ${GROUP} samples (GRPO groups), one turn, replies from the profile (median 512, capped at 2048), ${CONCURRENCY} in flight, ${REPLICAS} replicas`;

/** How a run placed its sessions: gymnast's sticky routing with or without group placement, or round-robin. */
type Placement = { name: string; routing: 'sticky' | 'round-robin'; groupPlacement: boolean };

const PLACEMENTS: Placement[] = [
  { name: 'sticky with group placement (gymnast)', routing: 'sticky', groupPlacement: true },
  { name: 'sticky, each sample least-loaded', routing: 'sticky', groupPlacement: false },
  { name: 'round-robin', routing: 'round-robin', groupPlacement: false },
];

async function prefilled(placement: Placement): Promise<{ prefill: number; makespan: number }> {
  const fleet = await startBenchFleet({ routing: placement.routing, groupPlacement: placement.groupPlacement });
  try {
    const tasks = Array.from({ length: PROMPTS }, (_, index) => workloadTask(index, PROMPT_TOKENS));
    const result = await runWorkload(fleet, {
      tasks,
      groupSize: GROUP,
      shape: { turns: () => 1, observationTokens: 0, stepSeconds: 0 },
      schedule: { kind: 'async', concurrency: CONCURRENCY },
      maxTokens: 2048,
    });
    return { prefill: result.reports.reduce((sum, report) => sum + report.prefillTokens, 0), makespan: result.makespan };
  } finally {
    await fleet.close();
  }
}

/**
 * GRPO groups (issue 26, item 4): the samples of one prompt share its prefill when they land on one
 * replica (gymnast's group placement); the tokens prefilled, by the simulator's count, against the
 * samples spread by load and round-robin. One request with `n` samples is the other way; gymnast's
 * episode loop runs a request per rollout, so it is not measured here.
 */
export async function grpoGroups(): Promise<BenchLine[]> {
  const results = [];
  for (const placement of PLACEMENTS) results.push({ placement, ...(await prefilled(placement)) });
  const [grouped, spread] = results as [(typeof results)[number], (typeof results)[number]];
  const out = process.stdout;
  out.write(`sched: GRPO groups: ${groupsWorkload}\n`);
  for (const result of results) out.write(`  ${result.placement.name}: ${result.prefill} tokens prefilled, makespan ${result.makespan.toFixed(1)} s\n`);
  out.write(
    `  prefill tokens saved by group placement: ${spread.prefill - grouped.prefill} (${(((spread.prefill - grouped.prefill) / spread.prefill) * 100).toFixed(0)}% of those spread by load); each prompt once would be ~${PROMPTS * PROMPT_TOKENS}\n`,
  );
  return [
    {
      name: 'sched: GRPO groups, tokens prefilled with group placement vs each sample placed by load',
      baseline: { label: 'by load', value: spread.prefill, unit: 'tokens' },
      measured: { label: 'grouped', value: grouped.prefill, unit: 'tokens' },
      lowerIsBetter: true,
    },
  ];
}
