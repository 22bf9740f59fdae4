import { z } from 'zod';
import { collectDefaults } from '../../collect/collect-settings.js';
import { DurationSeconds } from '../../core/duration.js';
import { HeaderValue } from '../../core/header-value.js';
import { ConfigFileError, type ConfigFileIssue } from '../../core/errors/config-file-error.js';
import { parseWithIssues } from '../../core/schema-issues.js';
import { findEnvironment } from '../../environments/registry.js';
import { findToolCallParser, toolCallParsers } from '../../environments/tool-call-parser.js';
import { policyKinds } from '../../policy/create-policy.js';
import { didYouMean } from '../../util/closest-name.js';
import { isNemoGymPort, servableResourcesNames } from '../resources/resources-server-for.js';
import { checkoutCommand } from './nemo-gym-checkout.js';
import type { GymConfig, ServerInstance } from './server-config.js';

/** The model impl gymnast serves itself: `gymnast serve model --embedded`. */
export const EMBEDDED_MODEL_IMPL = 'gymnast_embedded';
/** NeMo Gym's model server for a vLLM endpoint: gymnast calls it as a policy, never starts it. */
export const SERVED_MODEL_IMPL = 'vllm_model';
/** NeMo Gym's agent impls gymnast's agent server stands in for. */
export const AGENT_IMPLS = ['simple_agent', 'gymnasium_agent'] as const;

/** What gymnast reads of a `vllm_model`: NeMo Gym's fields, and gymnast's own (all optional) for its exact-token policy. */
const ServedModelSettings = z.looseObject({
  base_url: z.union([z.url({ protocol: /^https?$/ }), z.array(z.url({ protocol: /^https?$/ })).min(1)], { error: 'expected an http(s) URL or a list of them' }),
  model: z.string().min(1).optional(),
  api_key: HeaderValue.optional(),
  /** The folder of the model's tokenizer.json + tokenizer_config.json; found from `model` or the server's `/v1/models` when left out. */
  tokenizer: z.string().min(1).optional(),
  /** Which of gymnast's policy APIs to call it with (default: from `use_completions_api`). */
  gymnast_policy: z.enum(policyKinds.filter((kind) => kind !== 'embedded') as [string, ...string[]]).optional(),
  /** NeMo Gym's: call vLLM's /v1/completions, not /v1/chat/completions (gymnast's vllm-completions, token-in). */
  use_completions_api: z.boolean().optional(),
  /** NeMo Gym's, read with `use_completions_api`: the prompt rendered with the chat template (else the raw text). */
  render_chat_template: z.boolean().optional(),
  max_model_len: z.number().int().positive().optional(),
});

/** The policy NeMo Gym's `use_completions_api: true` samples with: the same endpoint, prompts sent as token ids. */
const COMPLETIONS_POLICY = 'vllm-completions';

/** gymnast's agent settings (all optional, defaulting as `gymnast collect`'s flags do: `collectDefaults`), beside NeMo Gym's agent fields. */
const AgentSettings = z.looseObject({
  max_turns: z.number().int().min(1).max(10_000).default(collectDefaults.maxTurns),
  max_tokens: z.number().int().min(1).default(collectDefaults.sampling.max_tokens),
  /** What a generation cut by max_tokens does to its episode: NeMo RL's `continue` (default) or `end` (see `MaxTokensPolicy`). */
  on_max_tokens: z.enum(['continue', 'end']).default(collectDefaults.onMaxTokens),
  max_seq_len: z.number().int().min(1).optional(),
  temperature: z.number().min(0).max(100).default(collectDefaults.sampling.temperature),
  seed: z.number().int().optional(),
  concurrency: z.number().int().min(1).max(100_000).default(collectDefaults.concurrency),
  run_timeout_seconds: DurationSeconds.optional(),
  /** The tool-call format the model writes, for agents driving a resources server over HTTP (default hermes). */
  tool_call_parser: z.string().min(1).optional(),
});
export type AgentSettings = z.infer<typeof AgentSettings>;

export interface ExternalPlan {
  kind: 'external';
  instance: ServerInstance;
  command: readonly string[];
  cwd?: string;
  /** Added to gymnast's environment. */
  env?: Readonly<Record<string, string>>;
}
export interface EmbeddedModelPlan {
  kind: 'embedded-model';
  instance: ServerInstance;
}
export interface ServedModelPlan {
  kind: 'served-model';
  instance: ServerInstance;
  baseUrls: string[];
  model?: string;
  apiKey?: string;
  tokenizer?: string;
  policy: string;
  maxModelLen?: number;
  /**
   * NeMo Gym's `use_completions_api` without `render_chat_template`: its server sends the system and
   * user text as the prompt, no chat template; gymnast renders the template, as for every prompt.
   */
  rawPrompt?: true;
}
export interface ResourcesPlan {
  kind: 'resources';
  instance: ServerInstance;
  /** A TypeScript port of the NeMo Gym server of this name, run instead of NeMo Gym's own. */
  nemoGymPort: boolean;
}
export interface AgentPlan {
  kind: 'agent';
  instance: ServerInstance;
  /**
   * What the agent's episode loop runs: a built-in environment in-process (the one its resources
   * server serves), or its resources server over HTTP, spoken to as NeMo Gym's agent impl does.
   */
  environment: { kind: 'builtin'; name: string } | { kind: 'server'; server: string; protocol: 'resources' | 'gymnasium' };
  model: EmbeddedModelPlan | ServedModelPlan;
  settings: AgentSettings;
}
export type ServerPlan = ExternalPlan | EmbeddedModelPlan | ServedModelPlan | ResourcesPlan | AgentPlan;

export interface PlanOptions {
  /** A NeMo Gym checkout: the servers gymnast has TypeScript ports of run from it as NeMo Gym runs them. */
  nemoGym?: string;
  /** Read for `PYTHONPATH` when a server runs from the checkout (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * How gymnast runs each instance of a config, or a `ConfigFileError` naming every one it cannot run:
 * any `command:` is an external process; a model is the embedded model (`gymnast_embedded`) or a
 * served one (`vllm_model`, not started); a resources server is a ported NeMo Gym example or a
 * built-in environment, served in-process, or with `nemoGym` a ported one is NeMo Gym's own, run from
 * that checkout; an agent (`simple_agent`, `gymnasium_agent`) is gymnast's agent server over its
 * resources server's built-in environment and its model.
 */
export function planServers(config: GymConfig, options: PlanOptions = {}): ServerPlan[] {
  const issues: ConfigFileIssue[] = [];
  const plans = new Map<string, ServerPlan>();
  for (const instance of config.instances) {
    const plan = planOf(instance, options, issues);
    if (plan) plans.set(instance.name, plan);
  }
  for (const instance of config.instances) {
    const plan = plans.get(instance.name);
    if (plan?.kind !== 'agent') continue;
    const wired = wireAgent(plan, plans, issues);
    if (wired) plans.set(instance.name, wired);
  }
  if (issues.length > 0) throw new ConfigFileError(config.file, issues);
  return [...plans.values()];
}

function planOf(instance: ServerInstance, options: PlanOptions, issues: ConfigFileIssue[]): ServerPlan | undefined {
  if (instance.config.command) return commandPlan(instance);
  const real = options.nemoGym !== undefined && instance.type === 'resources_servers' && isNemoGymPort(instance.impl);
  return real ? checkoutPlan(instance, options.nemoGym!, options.env ?? process.env, issues) : ownPlan(instance, issues);
}

function commandPlan(instance: ServerInstance): ExternalPlan {
  const { command, cwd, env } = instance.config;
  return { kind: 'external', instance, command: command!, ...(cwd === undefined ? {} : { cwd }), ...(env === undefined ? {} : { env }) };
}

function checkoutPlan(
  instance: ServerInstance,
  checkout: string,
  env: Readonly<Record<string, string | undefined>>,
  issues: ConfigFileIssue[],
): ExternalPlan | undefined {
  const run = checkoutCommand(instance, checkout, env);
  if ('path' in run) return void issues.push(run);
  return { kind: 'external', instance, ...run };
}

/** A placeholder agent plan until its refs are wired (they may name instances defined after it). */
function ownPlan(instance: ServerInstance, issues: ConfigFileIssue[]): ServerPlan | undefined {
  const unknownImpl = (known: readonly string[], what: string) =>
    issues.push({ path: instance.path, expected: `${what}: one of ${known.join(', ')}, or a command: to run${didYouMean(instance.impl, known)}` });
  switch (instance.type) {
    case 'responses_api_models': {
      if (instance.impl === EMBEDDED_MODEL_IMPL) return { kind: 'embedded-model', instance };
      if (instance.impl !== SERVED_MODEL_IMPL) return void unknownImpl([EMBEDDED_MODEL_IMPL, SERVED_MODEL_IMPL], 'a model impl gymnast knows');
      const parsed = parse(ServedModelSettings, instance, issues);
      if (!parsed) return undefined;
      if (parsed.use_completions_api && parsed.gymnast_policy !== undefined && parsed.gymnast_policy !== COMPLETIONS_POLICY) {
        return void issues.push({
          path: `${instance.path}.gymnast_policy`,
          expected: `${COMPLETIONS_POLICY} or left out: use_completions_api: true calls /v1/completions, got ${parsed.gymnast_policy}`,
        });
      }
      return {
        kind: 'served-model',
        instance,
        baseUrls: Array.isArray(parsed.base_url) ? parsed.base_url : [parsed.base_url],
        policy: parsed.gymnast_policy ?? (parsed.use_completions_api ? COMPLETIONS_POLICY : 'vllm-chat'),
        ...(parsed.use_completions_api && !parsed.render_chat_template ? { rawPrompt: true as const } : {}),
        ...(parsed.model === undefined ? {} : { model: parsed.model }),
        ...(parsed.api_key ? { apiKey: parsed.api_key } : {}),
        ...(parsed.tokenizer === undefined ? {} : { tokenizer: parsed.tokenizer }),
        ...(parsed.max_model_len === undefined ? {} : { maxModelLen: parsed.max_model_len }),
      };
    }
    case 'resources_servers': {
      const known = servableResourcesNames();
      if (!known.includes(instance.impl))
        return void unknownImpl(known, 'a resources server gymnast serves (a ported NeMo Gym example or a built-in environment)');
      return { kind: 'resources', instance, nemoGymPort: isNemoGymPort(instance.impl) };
    }
    case 'responses_api_agents': {
      if (!(AGENT_IMPLS as readonly string[]).includes(instance.impl)) return void unknownImpl(AGENT_IMPLS, 'an agent impl gymnast serves');
      for (const key of ['resources_server', 'model_server'] as const) {
        if (!instance.config[key])
          issues.push({
            path: `${instance.path}.${key}`,
            expected: `missing (expected {type: ${key === 'model_server' ? 'responses_api_models' : 'resources_servers'}, name: …})`,
          });
      }
      const settings = parse(AgentSettings, instance, issues);
      if (settings?.tool_call_parser !== undefined && !findToolCallParser(settings.tool_call_parser)) {
        const known = toolCallParsers.map((parser) => parser.name);
        issues.push({
          path: `${instance.path}.tool_call_parser`,
          expected: `a tool-call format: one of ${known.join(', ')}${didYouMean(settings.tool_call_parser, known)}`,
        });
      }
      return settings ? ({ kind: 'agent', instance, environment: undefined as never, model: undefined as never, settings } satisfies AgentPlan) : undefined;
    }
  }
}

/**
 * The agent's environment and policy. A resources server whose impl is a built-in environment runs
 * in-process in the agent (the same environment, no HTTP between); any other (a ported example, a
 * command: server) is driven over HTTP: `/seed_session`, tools, `/verify` for `simple_agent`, `/reset`
 * and `/step` for `gymnasium_agent`, as NeMo Gym's agents drive them.
 */
function wireAgent(plan: AgentPlan, plans: ReadonlyMap<string, ServerPlan>, issues: ConfigFileIssue[]): AgentPlan | undefined {
  const { resources_server: resourcesRef, model_server: modelRef } = plan.instance.config;
  if (!resourcesRef || !modelRef) return undefined;
  const resources = plans.get(resourcesRef.name);
  const model = plans.get(modelRef.name);
  // Either one without a plan was refused as it was planned (or as a ref to nothing): said once, there.
  if (!resources || !model) return undefined;
  if (model.kind !== 'embedded-model' && model.kind !== 'served-model') {
    issues.push({
      path: `${plan.instance.path}.model_server.name`,
      expected: `a model gymnast can sample (${EMBEDDED_MODEL_IMPL} or ${SERVED_MODEL_IMPL}), not a command: server`,
    });
    return undefined;
  }
  const environment: AgentPlan['environment'] =
    resources.kind === 'resources' && findEnvironment(resources.instance.impl)
      ? { kind: 'builtin', name: resources.instance.impl }
      : { kind: 'server', server: resources.instance.name, protocol: plan.instance.impl === 'gymnasium_agent' ? 'gymnasium' : 'resources' };
  return { ...plan, environment, model };
}

function parse<Schema extends z.ZodType>(schema: Schema, instance: ServerInstance, issues: ConfigFileIssue[]): z.infer<Schema> | undefined {
  const parsed = parseWithIssues(schema, instance.config);
  if ('data' in parsed) return parsed.data;
  issues.push(...parsed.issues.map((issue) => ({ path: issue.field ? `${instance.path}.${issue.field}` : instance.path, expected: issue.message })));
  return undefined;
}
