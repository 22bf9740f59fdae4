import type { z } from 'zod';
import { checkDurationMs } from '../../core/duration.js';
import { EnvironmentError } from '../../core/errors/environment-error.js';
import { hasKind } from '../../core/errors/has-kind.js';
import { ServerError } from '../../core/errors/server-error.js';
import { parseWithIssues } from '../../core/schema-issues.js';
import type { HttpReply } from '../../http-client/http-reply.js';
import { JsonClient } from '../../http-client/json-client.js';
import type { RetryBudgetOptions } from '../../http-client/router/retry-budget.js';
import { requestUrl } from '../../http-client/request-url.js';
import { Router } from '../../http-client/router/router.js';
import { redactUrls } from '../../util/redact-urls.js';
import { cookieHeaders, withSetCookies, type Cookies } from './cookie-jar.js';

export interface NemoGymServerOptions {
  /** Names the server in errors (the agent's name). */
  name: string;
  /** The server's base URL; several are replicas, and an episode's calls stick to one (its state lives there). */
  urls: readonly string[];
  /** Deadline of one HTTP call, each retry its own (default 300 s). */
  timeoutMs?: number;
  /** Attempts per call on connection errors, timeouts, 429 and 5xx (default 3). Tool calls: connection errors only. */
  maxAttempts?: number;
  /** The retry budget shared by every call to this server (default: a fifth of calls, plus 10). */
  retryBudget?: RetryBudgetOptions;
  /** A client to share (its pools are then not closed here). */
  client?: JsonClient;
  /** Told of every retry (for progress displays). */
  onRetry?: () => void;
}

/** One episode's side of the conversation with a server: which replica it sticks to, and its cookies. */
export interface ServerSession {
  key: string;
  cookies: Cookies;
}

/**
 * A NeMo Gym server (resources or gymnasium) over HTTP: JSON calls with a deadline each, retried
 * through the router within one budget, carrying an episode's cookies and keeping those it is sent.
 */
export class NemoGymServer {
  readonly name: string;
  readonly #client: JsonClient;
  readonly #ownsClient: boolean;
  readonly #router: Router;
  readonly #timeoutMs: number;

  constructor(options: NemoGymServerOptions) {
    checkDurationMs('timeoutMs', options.timeoutMs);
    this.name = options.name;
    this.#client = options.client ?? new JsonClient();
    this.#ownsClient = options.client === undefined;
    this.#timeoutMs = options.timeoutMs ?? 300_000;
    this.#router = new Router(this.#client, {
      urls: options.urls,
      retry: { maxAttempts: options.maxAttempts ?? 3 },
      ...(options.retryBudget ? { retryBudget: options.retryBudget } : {}),
      onEvent: (event) => event.type === 'retry' && options.onRetry?.(),
    });
  }

  /**
   * POSTs `body` and reads a JSON answer of `schema`'s shape. An error status, once retries are spent,
   * is a ServerError; a body that is not JSON, or not of that shape, is an EnvironmentError naming it.
   */
  async call<T>(path: string, body: unknown, schema: z.ZodType<T>, session: ServerSession, signal: AbortSignal): Promise<{ value: T; cookies: Cookies }> {
    const { reply, url } = await this.#router.call(
      session.key,
      async (replica) => {
        const url = requestUrl(replica.url, path);
        const reply = await this.#exchange(replica.url, path, body, session.cookies, signal);
        if (reply.status >= 400) throw new ServerError(url, reply.status, reply.text.slice(0, 500));
        return { reply, url };
      },
      signal,
    );
    return { value: this.#parse(url, reply.text, schema), cookies: withSetCookies(session.cookies, reply.headers['set-cookie']) };
  }

  /**
   * Calls a tool: `POST /<name>` with its arguments. Whatever the server answers is the tool's output,
   * error statuses included (NeMo Gym shows the model those too). Only connection failures are retried:
   * a call that timed out may have been applied, and a tool need not be idempotent.
   */
  async tool(name: string, args: unknown, session: ServerSession, signal: AbortSignal): Promise<{ status: number; text: string; cookies: Cookies }> {
    const path = `/${encodeURIComponent(name)}`;
    const reply = await this.#router.call(
      session.key,
      (replica) =>
        this.#exchange(replica.url, path, args, session.cookies, signal).catch((error: unknown) => {
          if (!hasKind(error, 'timeout')) throw error;
          throw new EnvironmentError(this.name, `tool ${name} did not answer within ${this.#timeoutMs} ms (not retried: it may have been applied)`, {
            cause: error,
          });
        }),
      signal,
    );
    return { status: reply.status, text: reply.text, cookies: withSetCookies(session.cookies, reply.headers['set-cookie']) };
  }

  async close(): Promise<void> {
    this.#router.close();
    if (this.#ownsClient) await this.#client.close();
  }

  #exchange(baseUrl: string, path: string, body: unknown, cookies: Cookies, signal: AbortSignal): Promise<HttpReply> {
    return this.#client.exchange({ method: 'POST', baseUrl, path, body, headers: cookieHeaders(cookies), timeoutMs: this.#timeoutMs, signal });
  }

  #parse<T>(url: string, text: string, schema: z.ZodType<T>): T {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new EnvironmentError(this.name, `${redactUrls(url)} answered with a body that is not JSON: ${JSON.stringify(text.slice(0, 120))}`);
    }
    const parsed = parseWithIssues(schema, value);
    if ('data' in parsed) return parsed.data as T;
    const issues = parsed.issues.map((issue) => `${issue.field || '(body)'}: ${issue.message}`);
    throw new EnvironmentError(this.name, `${redactUrls(url)} answered with an unexpected body: ${issues.join('; ')}`);
  }
}
