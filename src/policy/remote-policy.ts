import { z } from 'zod';
import { ContextLengthError } from '../core/errors/context-length-error.js';
import { hasKind } from '../core/errors/has-kind.js';
import { RequestTimeoutError } from '../core/errors/request-timeout-error.js';
import { SamplerReplyError } from '../core/errors/sampler-reply-error.js';
import type { ServerError } from '../core/errors/server-error.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { deadlineSignal } from '../util/deadline-signal.js';
import { raceAbort } from '../util/race-abort.js';
import type { BackendRecipe } from './backend-recipe.js';
import { JsonClient } from '../http-client/json-client.js';
import { requestUrl } from '../http-client/request-url.js';
import type { Policy, PolicyRequest } from './policy.js';
import type { PolicyResultInput } from '../core/policy-result.js';
import { Router, type RouterOptions } from '../http-client/router/router.js';
import { promptKey } from '../http-client/router/prompt-key.js';
import { extensibleCopy } from '../util/extensible-copy.js';
import { sampledReplyProblem } from './sampled-reply-problem.js';
import { redactUrls } from '../util/redact-urls.js';

export interface RemotePolicyOptions<Wire> extends RouterOptions {
  backend: BackendRecipe<Wire>;
  /** The model's tokenizer: every reply's ids are checked against its vocabulary and decoded to the reply's text. */
  tokenizer: Tokenizer;
  /** Served model name; read from `/v1/models` when absent. */
  model?: string;
  /** The model's context length; read from `/v1/models` (`max_model_len`) when absent. */
  maxModelLen?: number;
  /** Sent as `Authorization: Bearer …` (hosted endpoints, `vllm serve --api-key`). */
  apiKey?: string;
  /** Deadline of one HTTP request (each retry gets its own). */
  requestTimeoutMs?: number;
  client?: JsonClient;
}

/** What the servers say they serve. */
export interface ServedModel {
  id: string;
  /** The model's context length; undefined when the server reports none (hosted APIs) and none was configured. */
  maxModelLen: number | undefined;
}

const ModelList = z.object({ data: z.array(z.object({ id: z.string(), max_model_len: z.number().int().optional() })).min(1) });

/** vLLM's wording for an overlong request; any other 400 is an error, not a truncation. */
const CONTEXT_LENGTH_MESSAGE = /maximum context length|context length|too long|exceeds the model|max_model_len/i;

/**
 * How servers word a refused token id in a prompt: vLLM's `Token id 151999 is out of vocabulary`, this
 * package's server's `prompt[57] is 151999: token ids must be from 0 to 151668`.
 */
const TOKEN_ID_MESSAGE = /token[ _-]?ids?\b|vocab/i;

/**
 * A policy served over HTTP: one backend recipe, many replicas behind a router. Before each call the
 * prompt and `max_tokens` are fitted to the model's context: `max_tokens` is clamped, and a prompt
 * with no room left ends the episode as a `max-seq-len` truncation. A request the server must reject
 * is never sent. Every reply is checked before it is used: one the sampler could not have produced
 * is a `SamplerReplyError`, retried like a 5xx (see `sampledReplyProblem`).
 */
export class RemotePolicy<Wire> implements Policy {
  readonly name: string;
  readonly router: Router;
  readonly #backend: BackendRecipe<Wire>;
  readonly #tokenizer: Tokenizer;
  readonly #client: JsonClient;
  readonly #ownsClient: boolean;
  readonly #timeoutMs: number;
  readonly #headers: Record<string, string>;
  /** Aborted by `close`: releases a model lookup still waiting on a server. */
  readonly #closing = new AbortController();
  #model: Promise<ServedModel> | undefined;
  #known: ServedModel | undefined;
  readonly #configured: { model?: string; maxModelLen?: number };

  constructor(options: RemotePolicyOptions<Wire>) {
    this.#backend = options.backend;
    this.#tokenizer = options.tokenizer;
    this.name = options.backend.name;
    this.#client = options.client ?? new JsonClient();
    this.#ownsClient = options.client === undefined;
    this.router = new Router(this.#client, options);
    this.#timeoutMs = options.requestTimeoutMs ?? 300_000;
    this.#headers = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
    this.#configured = { ...(options.model ? { model: options.model } : {}), ...(options.maxModelLen ? { maxModelLen: options.maxModelLen } : {}) };
  }

  /**
   * Not an async function, nor is the attempt it hands the router: an episode waits here most of its
   * life, and each async frame waiting (a generator, its registers, promise and closures) is memory
   * held per episode in flight (issue 26). What would throw before the request is sent rejects instead.
   */
  generate(request: PolicyRequest, signal: AbortSignal): Promise<PolicyResultInput> {
    // Once known, the model info is read directly: racing the signal would add a listener per request.
    const known = this.#known;
    if (known === undefined) return raceAbort(this.#lookup(), signal).then((model) => this.#generate(request, model, signal));
    try {
      return this.#generate(request, known, signal);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #generate(request: PolicyRequest, model: ServedModel, signal: AbortSignal): Promise<PolicyResultInput> {
    // The fitted request is the wire body's alone: what waits for the answer keeps the request as it came.
    const body = this.#backend.toWire(fitToContext(request, model.maxModelLen), model.id);
    return this.router.call(
      request.session_id,
      (replica) => this.#attempt(replica.url, body, request, model, signal),
      signal,
      () => promptKey(request.prompt_token_ids),
    );
  }

  /** One request to one replica, its reply checked and read: what the router retries. */
  #attempt(url: string, body: unknown, request: PolicyRequest, model: ServedModel, signal: AbortSignal): Promise<PolicyResultInput> {
    return this.#client
      .request({
        method: 'POST',
        baseUrl: url,
        path: this.#backend.path,
        body,
        headers: extensibleCopy(this.#headers, { 'x-session-id': request.session_id }),
        schema: this.#backend.responseSchema,
        read: this.#backend.readResponse,
        timeoutMs: this.#timeoutMs,
        signal,
      })
      .then(
        (reply) => {
          this.#checkSampled(reply, url);
          const result = this.#backend.fromWire(reply, request);
          // Masked as the router's events mask it: rows are read by more people than the one who typed the URL.
          result.server = redactUrls(url);
          return result;
        },
        (error: unknown) => {
          throw this.#refusal(error, request, model);
        },
      );
  }

  /** A refusal as what it means: a context-length truncation, the server's own fault, or as it came. */
  #refusal(error: unknown, request: PolicyRequest, model: ServedModel): unknown {
    if (!hasKind(error, 'server') || error.isRetryable) return error;
    if (error.status === 400 && CONTEXT_LENGTH_MESSAGE.test(error.message))
      return new ContextLengthError(request.prompt_token_ids.length, model.maxModelLen ?? 0, error.message);
    if (refusesOwnReply(error, request)) {
      return new SamplerReplyError(`${this.name} ${error.message} (the prompt holds this server's earlier replies: its fault, not the input's)`, {
        isRetryable: false,
        status: error.status,
        cause: error,
      });
    }
    return error;
  }

  /** Throws when the reply is one the sampler could not have produced, naming the field and value. */
  #checkSampled(reply: Wire, url: string): void {
    const sampled = this.#backend.sampledReply(reply);
    const problem = sampled && sampledReplyProblem(sampled, this.#tokenizer);
    if (problem) throw new SamplerReplyError(`${this.name} ${redactUrls(url)}: reply ${problem}`, { isRetryable: true });
  }

  get serverUrls(): readonly string[] {
    return this.router.replicas.map((replica) => replica.url);
  }

  endSession(sessionId: string): void {
    this.router.release(sessionId);
  }

  /**
   * The served model's name and context length, asked of the servers once (`GET /v1/models`) unless
   * both were configured. Waits at most `timeoutMs` (then a `RequestTimeoutError`) or until `signal`
   * aborts; the lookup itself goes on for later callers, and a failed one is asked again next time.
   */
  async lookupModel(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ServedModel> {
    if (this.#known) return this.#known;
    const { signal, timeoutMs } = options;
    const deadline = deadlineSignal(signal, timeoutMs);
    try {
      return await raceAbort(this.#lookup(), deadline.signal);
    } catch (error) {
      const timedOut = timeoutMs !== undefined && deadline.signal.aborted && !signal?.aborted;
      if (timedOut) throw new RequestTimeoutError(this.router.replicas.map((replica) => requestUrl(replica.url, '/v1/models')).join(', '), timeoutMs);
      throw error;
    } finally {
      deadline.dispose();
    }
  }

  async close(): Promise<void> {
    this.#closing.abort(new Error('the policy was closed'));
    this.router.close();
    if (this.#ownsClient) await this.#client.close();
  }

  /** Looked up once for every episode, so under no one episode's signal: the request has its own deadline. */
  #lookup(): Promise<ServedModel> {
    const { model, maxModelLen } = this.#configured;
    if (model !== undefined && maxModelLen !== undefined) {
      this.#known = { id: model, maxModelLen };
      return Promise.resolve(this.#known);
    }
    const { signal } = this.#closing;
    this.#model ??= this.router
      .call(
        'gymnast:models',
        (replica) =>
          this.#client.request({
            method: 'GET',
            baseUrl: replica.url,
            path: '/v1/models',
            headers: this.#headers,
            schema: ModelList,
            timeoutMs: this.#timeoutMs,
            signal,
          }),
        signal,
      )
      .then((list) => {
        const served = list.data.find((entry) => entry.id === model) ?? list.data[0]!;
        this.#known = { id: model ?? served.id, maxModelLen: maxModelLen ?? served.max_model_len };
        return this.#known;
      });
    // A failed lookup is not cached: the next episode asks again.
    this.#model.catch(() => (this.#model = undefined));
    return this.#model;
  }
}

/**
 * A 4xx about token ids on a continuing turn: the prompt holds ids the server sampled itself. The
 * input's own ids were accepted on the first turn and the ids since are the server's replies and the
 * environment's answers rendered with the same tokenizer, so the server is blamed: sending the same
 * prompt again would be refused again, but the rollout run afresh (on resume) samples new ids.
 */
function refusesOwnReply(error: ServerError, request: PolicyRequest): boolean {
  return TOKEN_ID_MESSAGE.test(error.message) && request.messages.some((message) => message.generation_logprobs !== undefined);
}

function fitToContext(request: PolicyRequest, maxModelLen: number | undefined): PolicyRequest {
  if (maxModelLen === undefined) return request;
  const room = maxModelLen - request.prompt_token_ids.length;
  if (room <= 0) throw new ContextLengthError(request.prompt_token_ids.length, maxModelLen);
  if (request.sampling.max_tokens <= room) return request;
  return { ...request, sampling: { ...request.sampling, max_tokens: room } };
}
