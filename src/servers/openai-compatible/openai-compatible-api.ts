import type { ToolCallParser } from '../../environments/tool-call-parser.js';
import type { ChatTemplate } from '../../tokens/chat-template.js';
import type { Tokenizer } from '../../tokens/tokenizer.js';
import { RequestRejectedError } from '../http-server/request-rejected-error.js';
import { findRoute } from './find-route.js';
import type { Generator } from './generator.js';
import { unixSeconds } from './response-id.js';
import type { Route, RouteContext, RouteResult } from './route.js';

export interface OpenAiCompatibleApiOptions {
  tokenizer: Tokenizer;
  template: ChatTemplate;
  generate: Generator;
  /** Which server to imitate where vLLM and SGLang differ (where chat puts `prompt_token_ids`). */
  flavor?: 'vllm' | 'sglang';
  /**
   * The served model's name. Given, a request naming another model is a 404 `model_not_found`; left
   * out, the server lists `gymnast-test-model` and answers any name (a stand-in for whatever model its
   * client is configured with), unless `answersAnyModel` says otherwise.
   */
  model?: string;
  answersAnyModel?: boolean;
  /** Where the model was loaded from, listed as `root` on `/v1/models` (vLLM lists the path or hub name it was given); the name when left out. */
  root?: string;
  /** Reads tool calls out of chat replies that were offered tools, as vLLM's `--tool-call-parser` (e.g. `hermesToolCallParser`); none returns the text as written. */
  toolCallParser?: ToolCallParser;
  maxModelLen?: number;
  /** Routes beyond the OpenAI-compatible ones, by `METHOD /path` (the embedded model's `POST /update_weights`). */
  extraRoutes?: Readonly<Record<string, Route>>;
}

/** A route bound to its API: the answer to one call's body, a refused request answered as its error. */
export type BoundRoute = (body: unknown, signal: AbortSignal) => Promise<RouteResult>;

/**
 * The OpenAI-compatible API apart from HTTP: the routes over one served model. Whoever serves it (the
 * `OpenAiCompatibleServer`, the test `InferenceServer`) reads the request and sends the result, so a
 * test server composes this API instead of subclassing a server for hooks.
 */
export class OpenAiCompatibleApi {
  readonly #context: RouteContext;
  readonly #extraRoutes: Readonly<Record<string, Route>>;

  constructor(options: OpenAiCompatibleApiOptions) {
    this.#context = {
      tokenizer: options.tokenizer,
      template: options.template,
      generate: options.generate,
      flavor: options.flavor ?? 'vllm',
      model: options.model ?? 'gymnast-test-model',
      answersAnyModel: options.answersAnyModel ?? options.model === undefined,
      startedAt: unixSeconds(),
      toolCallParser: options.toolCallParser,
      maxModelLen: options.maxModelLen ?? 32_768,
      root: options.root,
    };
    this.#extraRoutes = options.extraRoutes ?? {};
  }

  /** The route serving `method` `path`, or undefined when none does (the caller answers 404). */
  route(method: string | undefined, path: string): BoundRoute | undefined {
    const route = this.#extraRoutes[`${method} ${path}`] ?? findRoute(method, path);
    return route && ((body, signal) => routed(() => route(this.#context, body, signal)));
  }
}

/** A route's refusal becomes its result, so whoever serves the API sees and sends it like any other answer. */
async function routed(route: () => RouteResult | Promise<RouteResult>): Promise<RouteResult> {
  try {
    return await route();
  } catch (error) {
    if (error instanceof RequestRejectedError) return { status: error.status, body: error.body };
    throw error;
  }
}
