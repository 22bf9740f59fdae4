import { SamplingParams, EpisodeTask } from '../src/core/index.js';
import { runGroups, type EpisodeOptions, type Schedule } from '../src/engine/index.js';
import { ScriptedEnvironment, ScriptedPolicy } from '../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer, TokenLedger } from '../src/tokens/index.js';
import { createSeededRandom } from '../src/util/seeded-random.js';
import type { BenchResult } from './bench-result.js';

const tokenizer = new CharTokenizer();
const renderer = new TemplateRenderer(tokenizer, new PlainChatTemplate());
const TURNS = 4;

function options(latency: (seed: number) => number): EpisodeOptions {
  const policy = new ScriptedPolicy({ tokenizer, script: (request) => ({ text: 'answer 42', delay_ms: latency(request.sampling.seed ?? 0) }) });
  const environment = new ScriptedEnvironment({
    step: (_turn, index) => ({ observation: [{ role: 'environment', content: 'go on' }], reward: 0.25, terminated: index === TURNS - 1 }),
  });
  return { policy, environment, renderer, maxTurns: TURNS, maxSeqLen: 4096, sampling: SamplingParams.parse({ max_tokens: 64, seed: 1 }) };
}

const tasks = (count: number) =>
  Array.from({ length: count }, (_, index) => EpisodeTask.parse({ id: `t${index}`, index, messages: [{ role: 'user', content: 'what is 6*7?' }] }));

async function timeRun(count: number, episodeOptions: EpisodeOptions, schedule: Schedule): Promise<number> {
  const started = performance.now();
  for await (const _ of runGroups(tasks(count), episodeOptions, { groupSize: 4, schedule }));
  return performance.now() - started;
}

/**
 * What the lockstep barrier costs when generation latency varies (as it does on a real server): the same
 * 256 episodes, 4 turns each, latencies 1–40 ms drawn from each request's seed.
 */
export async function scheduleCost(): Promise<BenchResult> {
  const latency = (seed: number) => createSeededRandom(seed).int(1, 40);
  const asyncMs = await timeRun(64, options(latency), { kind: 'async', concurrency: 64 });
  const lockstepMs = await timeRun(64, options(latency), { kind: 'lockstep', concurrency: 64 });
  return {
    name: 'schedule: lockstep vs async (variable latency)',
    baseline: { label: 'async', value: asyncMs, unit: 'ms' },
    measured: { label: 'lockstep', value: lockstepMs, unit: 'ms' },
    lowerIsBetter: true,
  };
}

/** The engine's own cost per turn with an instant policy, against calling the same policy and environment in a bare loop. */
export async function engineOverhead(): Promise<BenchResult> {
  const episodes = 2000;
  const instant = options(() => 0);
  const bareStarted = performance.now();
  for (let e = 0; e < episodes; e++) {
    for (let turn = 0; turn < TURNS; turn++) {
      const messages = [{ role: 'user' as const, content: 'what is 6*7?' }];
      const prompt = renderer.renderDelta(new TokenLedger(tokenizer), [], messages, { addGenerationPrompt: true }).tokenIds.flat();
      await instant.policy.generate(
        { session_id: `b${e}`, prompt_token_ids: prompt, messages, sampling: instant.sampling, stop_strings: [], stop_token_ids: [] },
        new AbortController().signal,
      );
      await instant.environment.step({ messages, metadata: undefined }, new AbortController().signal);
    }
  }
  const bareMs = performance.now() - bareStarted;
  const engineMs = await timeRun(episodes / 4, instant, { kind: 'async', concurrency: 32 });
  return {
    name: `engine overhead (${episodes} episodes × ${TURNS} turns, instant policy)`,
    baseline: { label: 'bare policy+env loop', value: bareMs, unit: 'ms' },
    measured: { label: 'engine', value: engineMs, unit: 'ms' },
    lowerIsBetter: true,
  };
}
