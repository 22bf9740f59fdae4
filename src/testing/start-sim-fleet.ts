import { resolveSimProfile, DEFAULT_PROFILE } from '../servers/sim/builtin-profiles.js';
import type { ReplicaReport } from '../servers/sim/replica-report.js';
import { SimFleet, type SimFleetOptions } from '../servers/sim/sim-fleet.js';
import type { SimProfile } from '../servers/sim/sim-profile.js';
import { loadSimTokenizer, type SimTokenizer } from '../servers/sim/sim-tokenizer.js';

export interface StartSimFleetOptions extends Partial<Omit<SimFleetOptions, 'profile' | 'tokenizer' | 'host'>> {
  /** A built-in profile's name, a profile file, or a profile (default `llama-3.1-8b-h100`). */
  profile?: string | SimProfile;
  /** A tokenizer folder or cached model name, or a loaded tokenizer (default Qwen3's, see `loadSimTokenizer`). */
  tokenizer?: string | SimTokenizer;
}

/** A started fleet: its replicas' base URLs, their accounts, and the fleet itself (engines, clock, failures). */
export interface StartedSimFleet {
  urls: string[];
  fleet: SimFleet;
  /** Every replica's account now: busy time, tokens, prefix-cache hits, preemptions … */
  reports(): ReplicaReport[];
  close(): Promise<void>;
}

/**
 * A simulated vLLM fleet on loopback, for specs and benchmarks: `replicas` replicas (default 1) on free
 * ports, simulated time `timeScale` times faster than wall time (default 1), replies seeded by `seed`.
 */
export async function startSimFleet(options: StartSimFleetOptions = {}): Promise<StartedSimFleet> {
  const profile = typeof options.profile === 'object' ? options.profile : await resolveSimProfile(options.profile ?? DEFAULT_PROFILE);
  const tokenizer = typeof options.tokenizer === 'object' ? options.tokenizer : await loadSimTokenizer(options.tokenizer);
  const fleet = new SimFleet({ ...options, replicas: options.replicas ?? 1, profile, tokenizer, host: '127.0.0.1' });
  const urls = await fleet.start();
  return { urls, fleet, reports: () => fleet.reports(), close: () => fleet.close() };
}
