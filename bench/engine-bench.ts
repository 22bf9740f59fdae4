import { SamplingParams, EpisodeTask, type Message } from '../src/core/index.js';
import { runGroups, type EpisodeOptions, type Schedule } from '../src/engine/index.js';
import { ScriptedEnvironment, ScriptedPolicy } from '../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer, TokenLedger } from '../src/tokens/index.js';
import { createSeededRandom } from '../src/util/seeded-random.js';
import type { BenchResult } from './bench-result.js';

const tokenizer = new CharTokenizer();
const renderer = new TemplateRenderer(tokenizer, new PlainChatTemplate());
const TURNS = 4;
const ROUNDS = 3;

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

/**
 * The same episodes without the engine: per turn the policy is asked with the whole sequence so far,
 * its reply appended, the environment stepped on the conversation, and its observation rendered as a
 * delta on the growing sequence (with a generation prompt while the episode goes on), as the engine
 * does. Left out is what the engine adds: checks, records, events, deadlines, seeds and scheduling.
 */
async function bareEpisode(episode: number, instant: EpisodeOptions, signal: AbortSignal): Promise<void> {
  const ledger = new TokenLedger(tokenizer);
  const messages: Message[] = [];
  const append = (added: readonly Message[], addGenerationPrompt: boolean) => {
    const { tokenIds } = renderer.renderDelta(ledger, messages, added, { addGenerationPrompt });
    added.forEach((message, i) => {
      const withTokens = { ...message, token_ids: tokenIds[i]! };
      messages.push(withTokens);
      ledger.appendMessage(withTokens);
    });
  };
  append([{ role: 'user', content: 'what is 6*7?' }], true);
  for (let turn = 0; turn < TURNS; turn++) {
    const result = await instant.policy.generate(
      {
        session_id: `b${episode}`,
        prompt_token_ids: ledger.tokenIds(),
        messages: [...messages],
        sampling: instant.sampling,
        stop_strings: [],
        stop_token_ids: [],
      },
      signal,
    );
    const reply: Message = { role: 'assistant', content: result.text, token_ids: result.token_ids, generation_logprobs: result.logprobs };
    messages.push(reply);
    ledger.appendMessage(reply);
    const step = await instant.environment.step({ messages: messages.map(({ role, content }) => ({ role, content })), metadata: undefined }, signal);
    append(
      (step.observation ?? []).map(({ role, content }) => ({ role, content })),
      !step.terminated,
    );
    if (step.terminated) return;
  }
}

/** The engine's own cost with an instant policy, against the same policy, environment and renderer driven by a bare loop. */
export async function engineOverhead(): Promise<BenchResult> {
  const episodes = 2000;
  const instant = options(() => 0);
  const signal = new AbortController().signal;
  for (let e = 0; e < 200; e++) await bareEpisode(e, instant, signal);
  await timeRun(50, instant, { kind: 'async', concurrency: 32 });
  let bareMs = Infinity;
  let engineMs = Infinity;
  // Alternating rounds, the fastest of each kept: on a shared machine, the run least disturbed.
  for (let round = 0; round < ROUNDS; round++) {
    const bareStarted = performance.now();
    for (let e = 0; e < episodes; e++) await bareEpisode(e, instant, signal);
    bareMs = Math.min(bareMs, performance.now() - bareStarted);
    engineMs = Math.min(engineMs, await timeRun(episodes / 4, instant, { kind: 'async', concurrency: 32 }));
  }
  return {
    name: `engine overhead (${episodes} episodes × ${TURNS} turns, instant policy; both warmed on 200 episodes, then the fastest of ${ROUNDS} alternating rounds)`,
    baseline: { label: 'bare policy+env+renderer loop', value: bareMs, unit: 'ms' },
    measured: { label: 'engine', value: engineMs, unit: 'ms' },
    lowerIsBetter: true,
  };
}
