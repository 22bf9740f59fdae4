import type { Routing } from '../../src/http-client/router/routing.js';
import { RemotePolicy, vllmCompletionsBackend } from '../../src/policy/index.js';
import type { SimProfile } from '../../src/servers/sim/sim-profile.js';
import {
  type Outage,
  type SimStep,
  builtinProfiles,
  loadSimTokenizer,
  SimFleetClient,
  type SimTokenizer,
  startSimFleet,
  type StartedSimFleet,
  VirtualClock,
} from '../../src/testing/index.js';
import { TemplateRenderer } from '../../src/tokens/index.js';

/** The fleet every scheduling bench runs on: four H100s serving the dense 8B (the default profile). */
export const REPLICAS = 4;
export const PROFILE: SimProfile = builtinProfiles['llama-3.1-8b-h100']!;

let loaded: Promise<SimTokenizer> | undefined;
/** Qwen3's tokenizer, for the fleet and the policy alike (loaded once). */
export const benchTokenizer = () => (loaded ??= loadSimTokenizer());

/** A started fleet on a virtual clock, and gymnast's policy over it in this process. */
export interface BenchFleet {
  clock: VirtualClock;
  sim: StartedSimFleet;
  client: SimFleetClient;
  policy: RemotePolicy<unknown>;
  renderer: TemplateRenderer;
  /** Tokens decoded in each simulated second, over the whole fleet. */
  decoded: number[];
  /** The same, replica by replica. */
  decodedBy: number[][];
  close(): Promise<void>;
}

export interface BenchFleetOptions {
  routing?: Routing;
  groupPlacement?: boolean;
  profile?: SimProfile;
  replicas?: number;
  outages?: Outage[];
}

/**
 * The simulated fleet on a `VirtualClock`, and gymnast's own policy (`vllm-completions`, its router)
 * over it through a `SimFleetClient`: every request goes through the same code as over HTTP but the
 * socket, so simulated time is exact and a run takes what the simulator and the client cost.
 */
export async function startBenchFleet(options: BenchFleetOptions = {}): Promise<BenchFleet> {
  const tokenizer = await benchTokenizer();
  const clock = new VirtualClock();
  const profile = options.profile ?? PROFILE;
  const decoded: number[] = [];
  const decodedBy: number[][] = Array.from({ length: options.replicas ?? REPLICAS }, () => []);
  const onStep = (step: SimStep) => {
    const second = Math.floor(step.end);
    for (const perSecond of [decoded, decodedBy[step.replica]!]) {
      while (perSecond.length <= second) perSecond.push(0);
      perSecond[second]! += step.decodeTokens;
    }
  };
  const sim = await startSimFleet({
    replicas: options.replicas ?? REPLICAS,
    profile,
    tokenizer,
    clock,
    seed: 26,
    onStep,
    ...(options.outages ? { outages: options.outages } : {}),
  });
  const client = new SimFleetClient(sim.fleet);
  const policy = new RemotePolicy({
    backend: vllmCompletionsBackend,
    urls: sim.urls,
    tokenizer: tokenizer.tokenizer,
    client,
    model: sim.fleet.modelName,
    maxModelLen: profile.maxModelLen,
    // Backoff and health probes wait on the wall clock, during which the virtual one runs on: kept short.
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    health: { intervalMs: 10 },
    ...(options.routing ? { routing: options.routing } : {}),
    ...(options.groupPlacement === undefined ? {} : { groupPlacement: options.groupPlacement }),
  });
  const renderer = new TemplateRenderer(tokenizer.tokenizer, tokenizer.template);
  return {
    clock,
    sim,
    client,
    policy,
    renderer,
    decoded,
    decodedBy,
    close: async () => {
      await policy.close();
      await sim.close();
    },
  };
}
