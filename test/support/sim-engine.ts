import { builtinProfiles } from '../../src/servers/sim/builtin-profiles.js';
import { SimEngine, type SimEngineOptions } from '../../src/servers/sim/sim-engine.js';
import { SimProfile } from '../../src/servers/sim/sim-profile.js';
import type { SimRequest } from '../../src/servers/sim/sim-request.js';
import { VirtualClock } from '../../src/servers/sim/virtual-clock.js';

/** The default built-in profile with some engine limits changed. */
export function profileWith(engine: Partial<SimProfile['engine']> = {}, rest: Partial<Omit<SimProfile, 'engine'>> = {}): SimProfile {
  const base = builtinProfiles['llama-3.1-8b-h100']!;
  return SimProfile.parse({
    ...base,
    ...rest,
    engine: { ...base.engine, ...engine },
    maxModelLen:
      rest.maxModelLen ?? Math.min(base.maxModelLen, (engine.numGpuBlocks ?? base.engine.numGpuBlocks) * (engine.blockSize ?? base.engine.blockSize)),
  });
}

/** An engine on its own virtual clock: a run takes as long as the simulator's work. */
export function virtualEngine(profile: SimProfile, options: Omit<SimEngineOptions, 'profile' | 'clock'> = {}): { engine: SimEngine; clock: VirtualClock } {
  const clock = new VirtualClock();
  return { engine: new SimEngine({ profile, clock, ...options }), clock };
}

/** Submits a request with its reply planned as given, and waits until its last token is out. */
export async function runRequest(
  engine: SimEngine,
  promptIds: readonly number[],
  replyIds: readonly number[],
  finish: 'stop' | 'length' = 'stop',
): Promise<SimRequest> {
  const request = engine.submit(promptIds, { ids: replyIds, finish, seed: 0 });
  return finished(request);
}

/** Waits until a submitted request's last token is out. */
export async function finished(request: SimRequest): Promise<SimRequest> {
  const signal = new AbortController().signal;
  while (request.status !== 'finished') await request.changed(request.outputLength, signal);
  return request;
}

/** `count` distinct token ids starting at `from`: prompts that share nothing unless built to. */
export const ids = (count: number, from = 1000): number[] => Array.from({ length: count }, (_, i) => from + i);
