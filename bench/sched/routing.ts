import { writeFileSync } from 'node:fs';
import type { ChatTool } from '../../src/core/chat-tool.js';
import type { Routing } from '../../src/http-client/router/routing.js';
import { SimProfile } from '../../src/testing/index.js';
import { createSeededRandom, mixSeed } from '../../src/util/seeded-random.js';
import type { BenchLine } from '../bench-result.js';
import { PROFILE, REPLICAS, startBenchFleet } from './bench-fleet.js';
import { CacheableTokens } from './cacheable-tokens.js';
import { CriticalRollout, type RolloutSpan, uncontendedSeconds } from './critical-rollout.js';
import { percent } from './fleet-timeline.js';
import { type WorkloadShape, words, workloadTask } from './fleet-workload.js';
import { runWorkload } from './run-workload.js';
import { barChart } from './svg-chart.js';

const TASKS = 512;
const CONCURRENCY = 256;
const MAX_TOKENS = 1024;

/** An agent's turns are tool calls, shorter than the profile's answers: the same H100 and model, replies of median 192 tokens. */
const AGENT_PROFILE = SimProfile.parse({
  ...PROFILE,
  name: `${PROFILE.name}-agent`,
  description: `${PROFILE.description} Replies as an agent's tool calls: median 192 tokens.`,
  outputLength: { median: 192, sigma: 1 },
});

const tool = (name: string, description: string, parameters: Record<string, string>): ChatTool => ({
  type: 'function',
  function: {
    name,
    description,
    parameters: {
      type: 'object',
      properties: Object.fromEntries(Object.entries(parameters).map(([key, text]) => [key, { type: 'string', description: text }])),
    },
  },
});

const TOOLS = [
  tool('run_shell', 'Run a shell command in the task sandbox and return its output.', { command: 'the command line', cwd: 'the folder to run it in' }),
  tool('read_file', 'Read a file of the repository.', { path: 'the file path', range: 'lines to read, e.g. 10-80' }),
  tool('edit_file', 'Replace text in a file.', { path: 'the file path', old: 'the text to replace', new: 'the text to put instead' }),
];

/** About 1,850 tokens of instructions: with the tools, the 2k-token prefix every rollout shares. */
const SYSTEM = `You are a software agent. ${words(1850, 2026)}`;

const shape: WorkloadShape = { turns: (task) => createSeededRandom(mixSeed(5, task)).int(4, 8), observationTokens: 500, stepSeconds: 0.5 };

export const routingWorkload = `${TASKS} rollouts sharing a ~2k-token system prompt with 3 tools, a 150-token task each, 4–8 turns (seeded), replies of an agent's tool calls (log-normal, median 192, capped at ${MAX_TOKENS}), tool outputs of 500 tokens taking 0.5 s, ${CONCURRENCY} in flight, ${REPLICAS} replicas`;

interface RoutingRun {
  routing: Routing;
  makespan: number;
  hits: number;
  cacheable: number;
  prompts: number;
  prefill: number;
  preemptions: number;
  wallSeconds: number;
  /** The rollout that ended last. */
  last: RolloutSpan;
}

async function run(routing: Routing): Promise<RoutingRun> {
  const fleet = await startBenchFleet({ routing, profile: AGENT_PROFILE });
  const counted = new CacheableTokens(AGENT_PROFILE.engine.blockSize);
  const critical = new CriticalRollout(fleet.clock);
  try {
    const tasks = Array.from({ length: TASKS }, (_, index) => workloadTask(index, 150, { system: SYSTEM, tools: TOOLS }));
    const result = await runWorkload(fleet, {
      tasks,
      groupSize: 1,
      shape,
      schedule: { kind: 'async', concurrency: CONCURRENCY },
      maxTokens: MAX_TOKENS,
      policy: critical.wrap(counted.wrap(fleet.policy)),
    });
    const sum = (key: 'prefixCacheHits' | 'prefillTokens' | 'preemptions') => result.reports.reduce((total, report) => total + report[key], 0);
    return {
      routing,
      makespan: result.makespan,
      hits: sum('prefixCacheHits'),
      cacheable: counted.total,
      prompts: counted.prompts,
      prefill: sum('prefillTokens'),
      preemptions: sum('preemptions'),
      wallSeconds: result.wallSeconds,
      last: critical.last(),
    };
  } finally {
    await fleet.close();
  }
}

const NAMES: Record<Routing, string> = {
  sticky: 'sticky + least-loaded (gymnast)',
  'least-loaded': 'least-loaded, no affinity',
  'round-robin': 'round-robin',
};

/**
 * What bounds a run's drain: its last rollout's chain of turns. Even alone on a replica from its start,
 * it would keep the run going until `floor`; what the run took past that is the time its turns waited
 * on busier replicas.
 */
function lastRollout(result: RoutingRun, roundRobin: RoutingRun): string {
  const { last } = result;
  const floor = last.start + uncontendedSeconds(last, AGENT_PROFILE.stepTime, shape.stepSeconds);
  return `    last rollout to end: ${last.session}, started at ${last.start.toFixed(1)} s, ${last.turns} turns, ${last.decoded} tokens decoded; alone on a replica from then it would end the run at ${floor.toFixed(1)} s (${(floor / roundRobin.makespan).toFixed(3)}× round-robin's makespan)`;
}

/**
 * Routing (issue 26, item 2): the same agent rollouts under each routing policy of gymnast's router;
 * prefix-cache hits (the simulator's own count) against the cacheable prompt tokens, and the makespan.
 * Writes docs/sched-routing.svg.
 */
export async function routing(svgPath: string): Promise<BenchLine[]> {
  const runs: RoutingRun[] = [];
  for (const policy of ['sticky', 'least-loaded', 'round-robin'] as const) runs.push(await run(policy));
  const [sticky, leastLoaded, roundRobin] = runs as [RoutingRun, RoutingRun, RoutingRun];
  const out = process.stdout;
  out.write(`sched: routing: ${routingWorkload}\n`);
  for (const result of runs)
    out.write(
      `  ${NAMES[result.routing]}: makespan ${result.makespan.toFixed(1)} s, prefix-cache hits ${result.hits} of ${result.cacheable} cacheable prompt tokens (${percent(result.hits / result.cacheable)}; ${result.prompts} prompt tokens sent), ${result.prefill} tokens prefilled, ${result.preemptions} preemptions, ${result.wallSeconds.toFixed(0)} s of wall time\n${lastRollout(result, roundRobin)}\n`,
    );
  writeFileSync(
    svgPath,
    barChart({
      title: `Routing, ${REPLICAS} simulated H100s: ${TASKS} agent rollouts sharing a 2k-token prompt`,
      measures: [
        { label: 'prefix-cache hits, % of cacheable prompt tokens', color: '#2ca02c' },
        { label: 'makespan, % of round-robin', color: '#9467bd' },
      ],
      groups: runs.map((result) => ({
        label: NAMES[result.routing],
        values: [
          { value: result.hits / result.cacheable, text: percent(result.hits / result.cacheable) },
          { value: result.makespan / roundRobin.makespan, text: `${result.makespan.toFixed(0)} s` },
        ],
      })),
      yMax: 1.1,
      yTicks: [0, 0.25, 0.5, 0.75, 1],
      yFormat: (value) => `${Math.round(value * 100)}%`,
    }),
  );
  out.write(`  picture: ${svgPath}\n`);
  return [
    {
      name: 'sched: routing, prefix-cache hits of sticky + least-loaded, % of cacheable prompt tokens',
      measured: { label: 'hits', value: (sticky.hits / sticky.cacheable) * 100, unit: '%' },
      target: { label: 'goal', value: 95, unit: '%', source: 'issue 26' },
      lowerIsBetter: false,
    },
    {
      name: 'sched: routing, makespan of sticky + least-loaded vs round-robin',
      baseline: { label: 'round-robin', value: roundRobin.makespan, unit: 'simulated s' },
      measured: { label: 'sticky', value: sticky.makespan, unit: 'simulated s' },
      lowerIsBetter: true,
    },
    {
      name: 'sched: routing, sticky makespan / round-robin makespan',
      measured: { label: 'sticky / round-robin', value: sticky.makespan / roundRobin.makespan, unit: '×' },
      target: { label: 'goal', value: 0.8, unit: '×', source: 'issue 26' },
      lowerIsBetter: true,
    },
    {
      name: 'sched: routing, makespan of least-loaded without affinity (NeMo RL) vs sticky',
      baseline: { label: 'sticky', value: sticky.makespan, unit: 'simulated s' },
      measured: { label: 'least-loaded', value: leastLoaded.makespan, unit: 'simulated s' },
      lowerIsBetter: true,
    },
  ];
}
