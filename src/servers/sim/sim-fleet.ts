import { OpenAiCompatibleApi } from '../openai-compatible/openai-compatible-api.js';
import { hermesToolCallParser } from '../../environments/tool-call-parser.js';
import type { AnswerScript } from './answer-script.js';
import { replicaReport, type ReplicaReport } from './replica-report.js';
import { ReplyPlanner } from './reply-planner.js';
import { ScaledClock, type SimClock } from './sim-clock.js';
import { SimEngine, type SimStep } from './sim-engine.js';
import { simGenerator } from './sim-generator.js';
import type { SimProfile } from './sim-profile.js';
import { SimReplicaServer } from './sim-replica-server.js';
import type { SimTokenizer } from './sim-tokenizer.js';

/** A replica that goes down at simulated second `at` and comes back `duration` seconds later. */
export interface Outage {
  replica: number;
  at: number;
  duration: number;
}

export interface SimFleetOptions {
  replicas: number;
  profile: SimProfile;
  tokenizer: SimTokenizer;
  /** Simulated seconds per wall second (default 1); ignored when `clock` is given. */
  timeScale?: number;
  /** The fleet's clock (a `VirtualClock` for in-process runs as fast as the simulator goes); default a `ScaledClock` at `timeScale`. */
  clock?: SimClock;
  /** Seeds every reply (default 0): the same seed and requests give the same replies. */
  seed?: number;
  /** Loopback unless told otherwise. */
  host?: string;
  /** Replica i listens on `port + i`; 0 (the default) gives each a free port. */
  port?: number;
  /** The model name served (default the profile's `model`). */
  servedModelName?: string;
  /** What replies answer, for environments that score them (see `correctWithProbability`). */
  answer?: AnswerScript;
  /** The width of each replica's busy-timeline buckets, in simulated seconds (default 1). */
  timelineBucketSeconds?: number;
  /** Called after every step of every replica. */
  onStep?: (step: SimStep, engine: SimEngine) => void;
  outages?: readonly Outage[];
}

/** One replica: its engine and its server. */
export interface SimReplica {
  engine: SimEngine;
  server: SimReplicaServer;
}

/**
 * A fleet of simulated vLLM replicas in one process, on one clock: each serves the OpenAI-compatible
 * API with vLLM's token fields, its `/metrics`, and pause and failure controls. Replies come from the
 * same seeded plan whichever replica serves a request.
 */
export class SimFleet {
  readonly clock: SimClock;
  readonly replicas: readonly SimReplica[];
  readonly modelName: string;
  readonly #options: SimFleetOptions;
  readonly #closing = new AbortController();

  constructor(options: SimFleetOptions) {
    if (!Number.isInteger(options.replicas) || options.replicas < 1) throw new RangeError(`replicas must be a whole number ≥ 1, got ${options.replicas}`);
    this.#options = options;
    this.clock = options.clock ?? new ScaledClock(options.timeScale ?? 1);
    this.modelName = options.servedModelName ?? options.profile.model;
    const { tokenizer, template } = options.tokenizer;
    const planner = new ReplyPlanner({ tokenizer, outputLength: options.profile.outputLength, seed: options.seed ?? 0, answer: options.answer });
    this.replicas = Array.from({ length: options.replicas }, (_, replica) => {
      const engine = new SimEngine({
        profile: options.profile,
        clock: this.clock,
        replica,
        ...(options.timelineBucketSeconds === undefined ? {} : { timelineBucketSeconds: options.timelineBucketSeconds }),
        ...(options.onStep ? { onStep: options.onStep } : {}),
      });
      const api = new OpenAiCompatibleApi({
        tokenizer,
        template,
        generate: simGenerator(engine, planner, tokenizer),
        model: this.modelName,
        maxModelLen: options.profile.maxModelLen,
        toolCallParser: hermesToolCallParser,
      });
      const port = options.port === undefined || options.port === 0 ? 0 : options.port + replica;
      const server = new SimReplicaServer({
        engine,
        clock: this.clock,
        api,
        modelName: this.modelName,
        port,
        ...(options.host === undefined ? {} : { host: options.host }),
      });
      return { engine, server };
    });
  }

  /** Starts every replica's server; their base URLs, in replica order. A port in use fails the start and closes what started. */
  async start(): Promise<string[]> {
    const started = await Promise.allSettled(this.replicas.map(({ server }) => server.start()));
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) {
      await this.close();
      throw failed.reason;
    }
    for (const outage of this.#options.outages ?? []) void this.#schedule(outage);
    return this.urls;
  }

  get urls(): string[] {
    return this.replicas.map(({ server }) => server.url);
  }

  /** Replica `replica` crashes (see `SimReplicaServer.fail`). */
  fail(replica: number): void {
    this.#replica(replica).server.fail();
  }

  recover(replica: number): void {
    this.#replica(replica).engine.recover();
  }

  /** Every replica's account now. */
  reports(): ReplicaReport[] {
    const now = this.clock.now();
    return this.replicas.map(({ engine }) => replicaReport(engine, now));
  }

  async close(): Promise<void> {
    this.#closing.abort();
    for (const { engine } of this.replicas) engine.close();
    await Promise.all(this.replicas.map(({ server }) => server.close()));
  }

  async #schedule(outage: Outage): Promise<void> {
    const signal = this.#closing.signal;
    try {
      await this.clock.sleepUntil(outage.at, signal);
      this.fail(outage.replica);
      await this.clock.sleepUntil(outage.at + outage.duration, signal);
      this.recover(outage.replica);
    } catch {
      // The fleet closed first.
    }
  }

  #replica(replica: number): SimReplica {
    const found = this.replicas[replica];
    if (!found) throw new RangeError(`no replica ${replica}: the fleet has ${this.replicas.length}`);
    return found;
  }
}
