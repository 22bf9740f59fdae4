import { z } from 'zod';
import { DurationMs } from '../core/duration.js';
import { HeaderValue } from '../core/header-value.js';
import { ConfigError } from '../core/errors/config-error.js';
import { hasKind } from '../core/errors/has-kind.js';
import { TemplateRenderer, type ConversationRenderer } from '../tokens/conversation-renderer.js';
import { loadHfTokenizer, type HfTokenizer } from '../tokens/hf-tokenizer.js';
import { JinjaChatTemplate } from '../tokens/jinja-chat-template.js';
import { chatCompletionsBackend } from './chat-completions/chat-completions-backend.js';
import { EmbeddedPolicy, embeddedModelDirectory } from './embedded/embedded-policy.js';
import { openAiBackend } from './openai/openai-backend.js';
import type { Policy } from './policy.js';
import { RemotePolicy, type RemotePolicyOptions } from './remote-policy.js';
import { defaultRetryBudget } from '../http-client/router/retry-budget.js';
import type { RouterEvent } from '../http-client/router/router.js';
import { routingPolicies } from '../http-client/router/routing.js';
import { sglangGenerateBackend } from './sglang-generate/sglang-generate-backend.js';
import { vllmCompletionsBackend } from './vllm-completions/vllm-completions-backend.js';
import { redactUrls } from '../util/redact-urls.js';

const remoteKinds = ['vllm-completions', 'vllm-chat', 'sglang-chat', 'sglang-generate', 'openai'] as const;

/** Every policy `createPolicy` builds: the embedded model, or a served one behind one of these APIs. */
export const policyKinds = ['embedded', ...remoteKinds] as const;
export type PolicyKind = (typeof policyKinds)[number];

/**
 * How hard a served policy tries: each request's deadline, its attempts, and the retries all requests
 * share. A hung request costs at most `requestTimeoutMs × requestAttempts` plus backoff; when a server
 * is down for everyone, retries stop at `retryBudget` of the traffic instead of multiplying it.
 */
export const RequestSettings = z.object({
  /** Deadline of one HTTP request; each retry gets its own (default 300 s, as a long generation may need). */
  requestTimeoutMs: DurationMs.optional(),
  /** Attempts per request, the first included (default 4). */
  requestAttempts: z
    .number({ error: 'expected a number' })
    .int({ error: 'expected a whole number' })
    .min(1, { error: 'expected a whole number ≥ 1' })
    .max(100, { error: 'expected at most 100' })
    .optional(),
  /** Retries allowed per request sent, on average, shared by all requests (default 0.2), plus 10 always allowed. */
  retryBudget: z.number({ error: 'expected a number' }).min(0, { error: 'expected a fraction ≥ 0' }).max(100, { error: 'expected at most 100' }).optional(),
});
export type RequestSettings = z.infer<typeof RequestSettings>;

const RemotePolicySpec = z.strictObject({
  kind: z.enum(remoteKinds),
  /** Replicas of one model (`http://host:8000`, with or without `/v1`); a `user:password@` in one is sent as Basic auth. */
  baseUrls: z.array(z.url({ protocol: /^https?$/, error: 'expected an http or https URL' })).min(1),
  /** The model's `tokenizer.json` and `tokenizer_config.json` (with its chat template). */
  tokenizerDir: z.string().min(1),
  /** Served model name; the first one `/v1/models` lists when absent. */
  model: z.string().min(1).optional(),
  /** Sent as `Authorization: Bearer …`; not with a base URL that has a user and password. */
  apiKey: HeaderValue.min(1).optional(),
  /** The model's context length; asked of the server (`/v1/models`) when absent. */
  maxModelLen: z.number().int().positive().optional(),
  /** How requests are placed on the replicas (default `sticky`: see `Routing`). */
  routing: z.enum(routingPolicies, { error: `expected ${routingPolicies.join(', ')}` }).optional(),
  ...RequestSettings.shape,
});

/** Which policy to build and where it is served. Extra fields are refused, so a misspelt one is not silently ignored. */
export const PolicySpec = z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('embedded') }), RemotePolicySpec]);
export type PolicySpec = z.infer<typeof PolicySpec>;

export interface CreatePolicyOptions {
  /** Aborts the model lookup. */
  signal?: AbortSignal;
  /** Told of the router's retries, evictions and re-admissions (served policies only). */
  onRouterEvent?: (event: RouterEvent) => void;
}

export interface CreatedPolicy {
  policy: Policy;
  /** Renders conversations with the model's own chat template. */
  renderer: ConversationRenderer;
  /** The model's context length: from the spec, the server, or the embedded model's config. */
  maxModelLen: number;
}

/** A server that lists no models within this long is not ready: better a clear error than a silent wait. */
const MODEL_LOOKUP_TIMEOUT_MS = 60_000;

type ServedPolicy = Policy & Pick<RemotePolicy<unknown>, 'lookupModel'>;
type ServedPolicyOptions = Omit<RemotePolicyOptions<unknown>, 'backend'>;

const servedPolicies: Record<(typeof remoteKinds)[number], (options: ServedPolicyOptions) => ServedPolicy> = {
  'vllm-completions': (options) => new RemotePolicy({ ...options, backend: vllmCompletionsBackend }),
  'vllm-chat': (options) => new RemotePolicy({ ...options, backend: chatCompletionsBackend('vllm') }),
  'sglang-chat': (options) => new RemotePolicy({ ...options, backend: chatCompletionsBackend('sglang') }),
  'sglang-generate': (options) => new RemotePolicy({ ...options, backend: sglangGenerateBackend }),
  openai: (options) => new RemotePolicy({ ...options, backend: openAiBackend }),
};

/** Checks a spec from outside (flags, a config file), with a `ConfigError` naming each field that is wrong. */
export function parsePolicySpec(input: unknown): PolicySpec {
  const parsed = PolicySpec.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(spec)'}: ${issue.message}`);
    throw new ConfigError(`invalid policy spec: ${issues.join('; ')}`);
  }
  const spec = parsed.data;
  const withCredentials = spec.kind === 'embedded' || spec.apiKey === undefined ? undefined : spec.baseUrls.find(hasCredentials);
  // Both would be sent as the one Authorization header: one would be dropped without a word.
  if (withCredentials !== undefined)
    throw new ConfigError(
      `invalid policy spec: ${redactUrls(withCredentials)} has a user and password (sent as Basic auth) and an API key is given too (sent as Bearer): keep one`,
    );
  return spec;
}

/** Whether a URL carries a user or password (`http://user:key@host`); false for text that is no URL. */
export function hasCredentials(url: string): boolean {
  try {
    const { username, password } = new URL(url);
    return username !== '' || password !== '';
  } catch {
    return false;
  }
}

/**
 * Builds the policy a spec names, its renderer and the model's context length. A served model's
 * length is asked of the server unless the spec gives it; a server that reports none is a
 * `ConfigError`. The caller owns the policy: `close()` it when done.
 */
export async function createPolicy(spec: PolicySpec, options: CreatePolicyOptions = {}): Promise<CreatedPolicy> {
  const checked = parsePolicySpec(spec);
  options.signal?.throwIfAborted();
  return checked.kind === 'embedded' ? createEmbeddedPolicy() : createServedPolicy(checked, options);
}

async function createEmbeddedPolicy(): Promise<CreatedPolicy> {
  const policy = await EmbeddedPolicy.load();
  return { policy, renderer: templateRenderer(policy.tokenizer, embeddedModelDirectory), maxModelLen: policy.maxModelLen };
}

async function createServedPolicy(spec: z.infer<typeof RemotePolicySpec>, options: CreatePolicyOptions): Promise<CreatedPolicy> {
  const tokenizer = await loadHfTokenizer(spec.tokenizerDir);
  const renderer = templateRenderer(tokenizer, spec.tokenizerDir);
  const policy = servedPolicies[spec.kind]({
    urls: spec.baseUrls,
    tokenizer,
    model: spec.model,
    apiKey: spec.apiKey,
    maxModelLen: spec.maxModelLen,
    requestTimeoutMs: spec.requestTimeoutMs,
    ...(spec.routing === undefined ? {} : { routing: spec.routing }),
    ...(spec.requestAttempts === undefined ? {} : { retry: { maxAttempts: spec.requestAttempts } }),
    ...(spec.retryBudget === undefined ? {} : { retryBudget: { ...defaultRetryBudget, ratio: spec.retryBudget } }),
    onEvent: options.onRouterEvent,
  });
  try {
    return { policy, renderer, maxModelLen: spec.maxModelLen ?? (await servedMaxModelLen(policy, spec.baseUrls, options.signal)) };
  } catch (error) {
    await policy.close();
    throw error;
  }
}

async function servedMaxModelLen(policy: ServedPolicy, baseUrls: readonly string[], signal: AbortSignal | undefined): Promise<number> {
  const served = await policy.lookupModel({ signal, timeoutMs: MODEL_LOOKUP_TIMEOUT_MS });
  if (served.maxModelLen !== undefined) return served.maxModelLen;
  throw new ConfigError(
    `${redactUrls(baseUrls.join(', '))}: /v1/models gives no max_model_len for ${served.id}; pass the model's context length (maxModelLen in the policy spec, --max-seq-len on the command line)`,
  );
}

function templateRenderer(tokenizer: HfTokenizer, directory: string): ConversationRenderer {
  try {
    return new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config));
  } catch (error) {
    if (hasKind(error, 'config')) throw new ConfigError(`${directory}: ${error.message}`, { cause: error });
    throw error;
  }
}
