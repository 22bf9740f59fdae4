import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { AbortedError } from '../../core/errors/aborted-error.js';
import { ConfigError } from '../../core/errors/config-error.js';
import { ContextLengthError } from '../../core/errors/context-length-error.js';
import { loadHfTokenizer, type HfTokenizer } from '../../tokens/hf-tokenizer.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { AsyncQueue } from '../../util/async-queue.js';
import { drain } from '../../util/drain.js';
import { createSeededRandom, type SeededRandom } from '../../util/seeded-random.js';
import { subscribeAbort } from '../../util/subscribe-abort.js';
import type { PolicyRequest, StreamedToken, StreamingPolicy } from '../policy.js';
import type { PolicyResult } from '../../core/policy-result.js';
import { GptConfig } from './gpt-config.js';
import { decodeStep, type KvCache } from './gpt-decoder.js';
import { GptModel } from './gpt-model.js';
import { PrefixCache } from './prefix-cache.js';
import { sampleToken } from './sample-token.js';

/** Finished sequences whose keys and values a new prompt may start from: more than a collect's usual concurrency, a few MB. */
const PREFIX_CACHE_SEQUENCES = 64;

/** Where the committed weights, their manifest and the tokenizer live (not `.pathname`: it keeps a space as `%20`). */
export const embeddedModelDirectory = fileURLToPath(new URL('../../../assets/embedded/', import.meta.url));

const Manifest = z.object({ config: GptConfig, weights: z.object({ file: z.string(), sha256: z.string() }) }).passthrough();

/** What `updateWeightsWhenIdle` did: the new version, or how many generations were still decoding at its deadline. */
export type WeightsUpdate = { updated: true; version: number } | { updated: false; decoding: number };

/** One sequence being decoded: what it still has to read, what it has sampled. */
interface Sequence {
  request: PolicyRequest;
  cache: KvCache;
  pending: number[];
  ids: number[];
  logprobs: number[];
  maxTokens: number;
  random: SeededRandom;
  /** Hands a token out as soon as it is sampled. */
  emit: (token: StreamedToken) => void;
  settle: (result: PolicyResult) => void;
  fail: (error: unknown) => void;
}

/**
 * The embedded GPT as a policy: no server, no GPU. Concurrent requests share each decoding step
 * (continuous batching: every step feeds each active sequence its prompt, on its first step, or its
 * last sampled token), so many episodes at once run faster than one at a time. A prompt that starts as
 * a recently finished sequence did (the template's opening, an episode's earlier turns) reads only
 * what follows that prefix (`PrefixCache`). Each step samples a
 * token for every sequence and then yields to the event loop, so a server streams it before the next
 * one is sampled, and HTTP and timers stay responsive. Logprobs are the model's raw ones (see
 * `sampleToken`). Same seed, same prompt and params: same tokens, whatever else is running.
 * `load` gives it the committed HF tokenizer, whose config holds the chat template.
 */
export class EmbeddedPolicy<T extends Tokenizer = Tokenizer> implements StreamingPolicy {
  readonly name = 'embedded';
  readonly model: GptModel;
  readonly tokenizer: T;
  readonly #active: Sequence[] = [];
  readonly #prefixes = new PrefixCache(PREFIX_CACHE_SEQUENCES);
  #running = false;
  #version = 0;
  /** Set while `updateWeightsWhenIdle` waits: new generations wait for it, so the old weights' last ones can finish. */
  #updating: Promise<void> | undefined;
  /** Called when the last decoding generation ends. */
  #idleWaiters: (() => void)[] = [];

  constructor(model: GptModel, tokenizer: T) {
    this.model = model;
    this.tokenizer = tokenizer;
  }

  /** Loads the committed model, refusing weights whose sha256 does not match their manifest. */
  static async load(directory = embeddedModelDirectory): Promise<EmbeddedPolicy<HfTokenizer>> {
    const manifest = Manifest.parse(JSON.parse(await readFile(join(directory, 'model.json'), 'utf8')));
    const model = GptModel.fromBytes(manifest.config, await readFile(join(directory, manifest.weights.file)));
    if (model.sha256() !== manifest.weights.sha256) throw new ConfigError(`${join(directory, manifest.weights.file)} does not match the sha256 in model.json`);
    return new EmbeddedPolicy(model, await loadHfTokenizer(directory));
  }

  /**
   * Puts new weights in the model (a trainer's, after a step), between generations: a generation
   * still decoding would mix two policies in one sequence, so this refuses while any is. The prefix
   * cache is emptied, as its keys and values came from the old weights.
   */
  updateWeights(params: Float32Array): void {
    if (this.#active.length > 0) throw new ConfigError(`cannot update the weights while ${this.#active.length} generations are decoding`);
    if (params.length !== this.model.params.length)
      throw new ConfigError(`the new weights hold ${params.length} floats but the model has ${this.model.params.length}`);
    this.model.params.set(params);
    this.#prefixes.clear();
    this.#version += 1;
  }

  /**
   * Puts new weights in once the generations decoding now have finished on the old ones (`updateWeights`
   * refuses while any decodes). Generations asked for meanwhile wait and start on the new weights. When
   * some still decode after `timeoutMs`, nothing changes and they go on: the answer says how many.
   */
  async updateWeightsWhenIdle(params: Float32Array, timeoutMs: number): Promise<WeightsUpdate> {
    while (this.#updating) await this.#updating;
    let release!: () => void;
    this.#updating = new Promise((resolve) => {
      release = resolve;
    });
    try {
      if (!(await this.#idle(timeoutMs))) return { updated: false, decoding: this.#active.length };
      this.updateWeights(params);
      return { updated: true, version: this.#version };
    } finally {
      this.#updating = undefined;
      release();
    }
  }

  /** Whether every generation decoding has ended within `timeoutMs`. */
  #idle(timeoutMs: number): Promise<boolean> {
    if (this.#active.length === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#idleWaiters = this.#idleWaiters.filter((waiter) => waiter !== done);
        resolve(false);
      }, timeoutMs);
      this.#idleWaiters.push(done);
    });
  }

  /** Which weights it samples with: 0 for those it was built with, +1 per `updateWeights`. Every result carries it. */
  get version(): number {
    return this.#version;
  }

  get maxModelLen(): number {
    return this.model.config.context_length;
  }

  /** The stream, drained: the same decoding whether or not anyone watches the tokens go by. */
  generate(request: PolicyRequest, signal: AbortSignal): Promise<PolicyResult> {
    return drain(this.stream(request, signal));
  }

  async *stream(request: PolicyRequest, signal: AbortSignal): AsyncGenerator<StreamedToken, PolicyResult, undefined> {
    const room = this.maxModelLen - request.prompt_token_ids.length;
    if (room <= 0) throw new ContextLengthError(request.prompt_token_ids.length, this.maxModelLen);
    if (request.prompt_token_ids.length === 0) throw new ConfigError('the embedded model needs at least one prompt token');
    while (this.#updating) await this.#updating;
    signal.throwIfAborted();
    const tokens = new AsyncQueue<StreamedToken>();
    let result: PolicyResult | undefined;
    const { cache, pending } = this.#prefixes.start(this.model, request.prompt_token_ids);
    const sequence: Sequence = {
      request,
      cache,
      pending,
      ids: [],
      logprobs: [],
      maxTokens: Math.min(request.sampling.max_tokens, room),
      random: createSeededRandom(request.sampling.seed ?? Math.floor(Math.random() * 2 ** 32)),
      emit: (token) => tokens.push(token),
      settle: (settled) => {
        result = settled;
        tokens.close();
      },
      fail: (error) => tokens.fail(error),
    };
    const unsubscribe = subscribeAbort(signal, (reason) => this.#remove(sequence) && sequence.fail(reason));
    this.#active.push(sequence);
    this.#schedule();
    try {
      yield* tokens;
      return result!;
    } finally {
      // However the generation ends (done, failed, aborted, or its consumer stopped listening), its KV cache goes.
      unsubscribe();
      this.#remove(sequence);
    }
  }

  /** Ends the generations still decoding with an `AbortedError`, releasing their caches. */
  async close(): Promise<void> {
    for (const sequence of this.#active.splice(0)) sequence.fail(new AbortedError('the embedded policy was closed'));
    this.#wakeIfIdle();
  }

  #wakeIfIdle(): void {
    if (this.#active.length === 0) for (const waiter of this.#idleWaiters.splice(0)) waiter();
  }

  #schedule(): void {
    if (this.#running) return;
    this.#running = true;
    setImmediate(() => this.#run());
  }

  #run(): void {
    try {
      if (this.#active.length > 0) this.#step();
    } catch (error) {
      for (const sequence of this.#active.splice(0)) sequence.fail(error);
      this.#wakeIfIdle();
    }
    this.#running = false;
    if (this.#active.length > 0) this.#schedule();
  }

  /**
   * One batched decoding step over every active sequence, sampling each one's next token. A new
   * sequence reads its prompt (what the prefix cache did not hold) in this step: its first token comes
   * one step after it arrives, however long the prompt.
   */
  #step(): void {
    const batch = [...this.#active];
    const rows = batch.map((sequence) => (sequence.pending.length > 0 ? sequence.pending.splice(0) : [sequence.ids.at(-1)!]));
    const logits = decodeStep(
      this.model,
      rows.flat(),
      rows.flatMap((tokens, b) => tokens.map(() => batch[b]!.cache)),
    );
    const V = this.model.config.vocab_size;
    batch.forEach((sequence, b) => {
      const { token, logprob } = sampleToken(logits, b * V, V, sequence.request.sampling, sequence.random);
      sequence.ids.push(token);
      sequence.logprobs.push(logprob);
      sequence.emit({ token_id: token, logprob });
      const finish = this.#finishReason(sequence, token);
      if (finish === undefined || !this.#remove(sequence)) return;
      this.#prefixes.keep([...sequence.request.prompt_token_ids, ...sequence.ids], sequence.cache);
      sequence.settle(this.#result(sequence, finish));
    });
  }

  #finishReason(sequence: Sequence, token: number): 'stop' | 'length' | undefined {
    const { request } = sequence;
    if (request.stop_token_ids.includes(token) || this.tokenizer.stopTokenIds.includes(token)) return 'stop';
    if (request.stop_strings.length > 0) {
      const text = this.tokenizer.decode(sequence.ids);
      if (request.stop_strings.some((stop) => text.endsWith(stop) || text.includes(stop))) return 'stop';
    }
    return sequence.ids.length >= sequence.maxTokens ? 'length' : undefined;
  }

  #result(sequence: Sequence, finish: 'stop' | 'length'): PolicyResult {
    return {
      token_ids: sequence.ids,
      logprobs: sequence.logprobs,
      text: this.tokenizer.decode(sequence.ids),
      finish_reason: { unified: finish, raw: finish },
      usage: { prompt_tokens: sequence.request.prompt_token_ids.length, completion_tokens: sequence.ids.length },
      token_source: 'sampler',
      logprobs_mode: 'raw',
      // The model reads the request's ids in this process: the prompt is the ledger's by construction.
      prompt_source: 'ledger',
      // No update happens while a sequence decodes, so the version now is the one that sampled all of it.
      policy_version: this.#version,
    };
  }

  #remove(sequence: Sequence): boolean {
    const index = this.#active.indexOf(sequence);
    if (index < 0) return false;
    this.#active.splice(index, 1);
    this.#wakeIfIdle();
    return true;
  }
}
