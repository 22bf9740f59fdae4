import { SamplingParams, type EpisodeTaskInput, EpisodeTask } from '../../src/core/index.js';
import type { EpisodeOptions } from '../../src/engine/index.js';
import type { Environment } from '../../src/environments/environment.js';
import type { Policy } from '../../src/policy/policy.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';

/** Char-level tokens and `role: content` lines: one character is one token, so budgets are easy to read. */
export const tokenizer = new CharTokenizer();
export const renderer = new TemplateRenderer(tokenizer, new PlainChatTemplate());

/** A fixed clock, so records compare byte for byte. */
export const frozenClock = { now: () => 0 };

export function task(index: number, overrides: Partial<EpisodeTaskInput> = {}): EpisodeTask {
  return EpisodeTask.parse({ id: `task-${index}`, index, messages: [{ role: 'user', content: `task ${index}` }], ...overrides });
}

export function episodeOptions(policy: Policy, environment: Environment, overrides: Partial<EpisodeOptions> = {}): EpisodeOptions {
  return {
    policy,
    environment,
    renderer,
    maxTurns: 5,
    maxSeqLen: 10_000,
    sampling: SamplingParams.parse({ max_tokens: 50, seed: 7 }),
    clock: frozenClock,
    ...overrides,
  };
}

/** Strips timing fields, which are the only fields allowed to differ between schedules. */
export function withoutTiming(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, field) => (key === 'timing' ? undefined : field)));
}
