import type { Generator } from '../openai-compatible/generator.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { mixSeed } from '../../util/seeded-random.js';
import type { ReplyPlanner } from './reply-planner.js';
import type { SimEngine } from './sim-engine.js';
import { StopMatcher } from './stop-matcher.js';

/**
 * A simulated replica behind the OpenAI-compatible routes: each request's reply is planned, queued in
 * the engine, and its tokens handed out as the engine releases them, in simulated time. Stop strings
 * and stop ids end it early, as they would a real sampler's; a client that leaves aborts it.
 */
export function simGenerator(engine: SimEngine, planner: ReplyPlanner, tokenizer: Tokenizer): Generator {
  return async function* (request, signal) {
    signal.throwIfAborted();
    const plan = planner.plan(request);
    const simRequest = engine.submit(request.promptIds, plan);
    const stops = new StopMatcher(tokenizer, request.stop, request.stopTokenIds);
    const output: number[] = [];
    try {
      for (;;) {
        await simRequest.changed(output.length, signal);
        while (output.length < simRequest.outputLength) {
          const id = simRequest.tokens[simRequest.promptLength + output.length]!;
          output.push(id);
          yield { token_id: id, logprob: seededLogprob(plan.seed, output.length, id) };
          const stopReason = stops.match(output);
          if (stopReason !== undefined) {
            engine.stop(simRequest);
            return { finish: 'stop', stopReason };
          }
        }
        if (simRequest.status === 'finished') return { finish: plan.finish, stopReason: null };
      }
    } finally {
      engine.cancel(simRequest);
    }
  };
}

/** A logprob for the token at `position`, from the request's seed: the same reply always reports the same ones. */
function seededLogprob(seed: number, position: number, id: number): number {
  return -(mixSeed(seed, position, id) % 10_000) / 4_000 - 0.001;
}
