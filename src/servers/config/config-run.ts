import { stringify } from 'yaml';
import { builtinAgent, type Agent } from '../../collect/agent.js';
import { resourcesAgent } from '../../collect/resources-agent.js';
import { ServerStartError } from '../../core/errors/server-start-error.js';
import { GymnastError } from '../../core/errors/gymnast-error.js';
import { redactUrls } from '../../util/redact-urls.js';
import { runSampling } from '../../core/sampling-params.js';
import { createPolicy, parsePolicySpec, type CreatedPolicy } from '../../policy/create-policy.js';
import type { EmbeddedPolicy } from '../../policy/embedded/embedded-policy.js';
import { AgentServer, type AgentServerOptions } from '../agent/agent-server.js';
import { embeddedModelServer } from '../openai-compatible/embedded-model-server.js';
import { resourcesServerFor } from '../resources/resources-server-for.js';
import { ExternalServer } from './external-server.js';
import { headServer, type ServerInstanceInfo } from './head-server.js';
import { agentDefaults, withNemoGymGlobals } from './nemo-gym-globals.js';
import { pickFreePort } from './pick-free-port.js';
import { planServers, type AgentPlan, type EmbeddedModelPlan, type ServerPlan, type ServedModelPlan } from './plan-servers.js';
import { servedModelTokenizer } from './served-model-tokenizer.js';
import type { GymConfig } from './server-config.js';
import { ConfigFileError } from '../../core/errors/config-file-error.js';
import { portInUseHint } from '../../core/errors/listen-error.js';

export interface ConfigRunOptions {
  /** Where external servers' prefixed output lines go (default: stderr). */
  output?: (line: string) => void;
  /** Grace period between SIGTERM and SIGKILL for external servers (default 5 s). */
  graceMs?: number;
  /** The bearer token the head server requires (`gymnast serve --config X --api-key K`); none by default, as in NeMo Gym. */
  headApiKey?: string;
  /**
   * Where a `vllm_model`'s tokenizer is looked for in the Hugging Face cache (`HF_HUB_CACHE`, `HF_HOME`),
   * and the `PYTHONPATH` a server run from `nemoGym` extends (default `process.env`).
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** A NeMo Gym checkout: the servers gymnast has TypeScript ports of run from it as NeMo Gym runs them, not the ports. */
  nemoGym?: string;
  /** Told which NeMo Gym servers gymnast stands in for with its own (default: a line on stderr). */
  onNotice?: (message: string) => void;
}

/** Every server of a config, running, and the head server that lists them. */
export interface ConfigRun {
  headUrl: string;
  /** In start order; a served `vllm_model` (not started by gymnast) is listed with its base URL. */
  servers: readonly ServerInstanceInfo[];
  /** The config as the head server publishes it: interpolated, every started server's host and port filled in. */
  resolvedConfig(): Record<string, unknown>;
  /** What samples the rows of each agent gymnast serves itself, by name: its policy, renderer and limits. */
  episodes: ReadonlyMap<string, AgentEpisode>;
  /** Stops every server, external processes included (SIGTERM, then SIGKILL); safe to call twice. */
  close(): Promise<void>;
}

/** Models and external processes first, then resources servers, then the agents that use them. */
const START_ORDER: Record<ServerPlan['kind'], number> = { external: 0, 'embedded-model': 0, 'served-model': 0, resources: 1, agent: 2 };

/** The policy, renderer and limits every rollout of an agent server shares. */
export type AgentEpisode = AgentServerOptions['episode'];

interface Started {
  info: ServerInstanceInfo;
  close(): Promise<void>;
  /** An agent server's. */
  episode?: AgentEpisode;
}

/**
 * Starts every server a config names (NeMo Gym's `ng_run`): ports left out are picked free on their
 * host up front, so the resolved config an external server is handed (NEMO_GYM_CONFIG_DICT) already
 * says where everything listens. Which NeMo Gym servers gymnast stands in for with its own is said
 * through `onNotice` first. One server failing stops the others and throws a `ServerStartError`
 * naming it; a config gymnast cannot run is a `ConfigFileError` before anything starts, or, for a
 * `vllm_model` whose tokenizer is found nowhere, once the servers started so far are stopped.
 */
export async function startConfigRun(config: GymConfig, options: ConfigRunOptions = {}): Promise<ConfigRun> {
  const planOptions = { ...(options.nemoGym === undefined ? {} : { nemoGym: options.nemoGym }), ...(options.env ? { env: options.env } : {}) };
  const plans = planServers(config, planOptions).sort((a, b) => START_ORDER[a.kind] - START_ORDER[b.kind]);
  const notice = options.onNotice ?? ((message: string) => process.stderr.write(`[config] ${message}\n`));
  for (const plan of plans) {
    const standIn = standInNotice(plan);
    if (standIn) notice(standIn);
  }
  const addresses = await assignAddresses(config, plans);
  const started: Started[] = [];
  const urls = new Map<string, string>();
  const policies = new Map<string, Promise<CreatedPolicy>>();
  const stopAll = async () => {
    for (const server of started.splice(0).reverse()) await server.close().catch(() => undefined);
    for (const policy of policies.values())
      await policy.then(
        (created) => created.policy.close(),
        () => undefined,
      );
    policies.clear();
  };

  let resolved: Record<string, unknown> = {};
  const head = headServer({
    ...config.headServer,
    ...(options.headApiKey === undefined ? {} : { apiKey: options.headApiKey }),
    instances: () => started.map((server) => server.info),
    config: () => resolved,
  });
  const headUrl = await head.start().catch((error: unknown) => {
    throw new ServerStartError('head_server', reason(withPortHint(error, 'head_server.port', config.file, true)), { cause: error });
  });
  resolved = resolvedConfig(config, addresses, { host: config.headServer.host, port: Number(new URL(headUrl).port) });
  try {
    for (const plan of plans) {
      const address = addresses.get(plan.instance.name);
      const context = { file: config.file, config: resolved, options, policies, address, urls };
      const server = await startOne(plan, context).catch((error: unknown) => {
        if (error instanceof ServerStartError || error instanceof ConfigFileError) throw error;
        throw new ServerStartError(
          plan.instance.name,
          reason(withPortHint(error, `${plan.instance.path}.port`, config.file, Boolean(plan.instance.config.port))),
          { cause: error },
        );
      });
      started.push(server);
      urls.set(plan.instance.name, server.info.url);
    }
  } catch (error) {
    await stopAll();
    await head.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    headUrl,
    servers: started.map((server) => server.info),
    resolvedConfig: () => resolved,
    episodes: new Map(started.flatMap((server) => (server.episode ? [[server.info.name, server.episode] as const] : []))),
    close: () => (closing ??= stopAll().then(() => head.close())),
  };
}

interface StartContext {
  /** The config file, named in errors. */
  file: string;
  config: Record<string, unknown>;
  options: ConfigRunOptions;
  policies: Map<string, Promise<CreatedPolicy>>;
  address: { host: string; port: number } | undefined;
  /** The URLs of the servers started so far, by name. */
  urls: ReadonlyMap<string, string>;
}

async function startOne(plan: ServerPlan, context: StartContext): Promise<Started> {
  const { instance } = plan;
  const info = (url: string, pid?: number): ServerInstanceInfo => ({
    name: instance.name,
    type: instance.type,
    impl: instance.impl,
    url,
    ...(pid === undefined ? {} : { pid }),
  });
  const listen = context.address!;
  switch (plan.kind) {
    case 'external': {
      const server = new ExternalServer({
        name: instance.name,
        command: plan.command,
        ...listen,
        env: { ...plan.env, NEMO_GYM_CONFIG_DICT: stringify(context.config), NEMO_GYM_CONFIG_PATH: instance.name },
        ...(plan.cwd === undefined ? {} : { cwd: plan.cwd }),
        ...(instance.config.health_path === undefined ? {} : { healthPath: instance.config.health_path }),
        ...(instance.config.startup_timeout_seconds === undefined ? {} : { startupTimeoutMs: instance.config.startup_timeout_seconds * 1000 }),
        ...(context.options.graceMs === undefined ? {} : { graceMs: context.options.graceMs }),
        ...(context.options.output ? { output: context.options.output } : {}),
      });
      try {
        const url = await server.start();
        return { info: info(url, server.pid), close: () => server.stop() };
      } catch (error) {
        await server.stop();
        throw error;
      }
    }
    case 'embedded-model': {
      const { policy } = await policyFor(plan, context);
      const server = embeddedModelServer(policy as EmbeddedPolicy, listen);
      return { info: info(`${await server.start()}/v1`), close: () => server.close() };
    }
    case 'served-model':
      // Listed by the head server and printed: its credentials stay in the plan, which the policy uses.
      return { info: info(redactUrls(plan.baseUrls[0]!)), close: async () => undefined };
    case 'resources': {
      const server = resourcesServerFor(instance.impl, listen)!;
      return { info: info(await server.start()), close: () => server.close() };
    }
    case 'agent':
      return startAgent(plan, context, info);
  }
}

async function startAgent(plan: AgentPlan, context: StartContext, info: (url: string) => ServerInstanceInfo): Promise<Started> {
  const { policy, renderer, maxModelLen } = await policyFor(plan.model, context, plan.instance.name);
  const { settings } = plan;
  const { agent, close } = agentFor(plan, context);
  const episode: AgentEpisode = {
    policy,
    renderer,
    maxTurns: settings.max_turns,
    maxSeqLen: settings.max_seq_len ?? maxModelLen,
    onMaxTokens: settings.on_max_tokens,
    sampling: runSampling({ temperature: settings.temperature, maxTokens: settings.max_tokens, seed: settings.seed }),
  };
  const server = new AgentServer({
    agent,
    episode,
    concurrency: settings.concurrency,
    ...(settings.run_timeout_seconds === undefined ? {} : { runTimeoutMs: settings.run_timeout_seconds * 1000 }),
    ...context.address!,
  });
  const stop = () => server.close().then(close);
  return {
    info: info(
      await server.start().catch(async (error: unknown) => {
        await close();
        throw error;
      }),
    ),
    close: stop,
    episode,
  };
}

/** Who runs the agent's rows: its built-in environment in-process, or gymnast's loop against its resources server over HTTP. */
function agentFor(plan: AgentPlan, context: StartContext): { agent: Agent; close: () => Promise<void> } {
  const { environment } = plan;
  if (environment.kind === 'builtin') return { agent: { ...builtinAgent(environment.name)!, name: plan.instance.name }, close: async () => undefined };
  const agent = resourcesAgent({
    name: plan.instance.name,
    urls: [context.urls.get(environment.server)!],
    protocol: environment.protocol,
    ...(plan.settings.tool_call_parser === undefined ? {} : { toolCallParser: plan.settings.tool_call_parser }),
  });
  return { agent, close: () => agent.close() };
}

/**
 * One policy per model instance, shared by its server and every agent using it; closed when the run
 * stops. The first agent using a served model names it when its tokenizer cannot be found.
 */
function policyFor(model: EmbeddedModelPlan | ServedModelPlan, context: StartContext, agent?: string): Promise<CreatedPolicy> {
  let created = context.policies.get(model.instance.name);
  if (!created) {
    created = model.kind === 'served-model' ? servedPolicy(model, agent ?? model.instance.name, context) : createPolicy(parsePolicySpec({ kind: 'embedded' }));
    context.policies.set(model.instance.name, created);
  }
  return created;
}

async function servedPolicy(served: ServedModelPlan, agent: string, context: StartContext): Promise<CreatedPolicy> {
  const tokenizerDir = await servedModelTokenizer(served, { file: context.file, agent, ...(context.options.env ? { env: context.options.env } : {}) });
  return createPolicy(
    parsePolicySpec({
      kind: served.policy,
      baseUrls: served.baseUrls,
      tokenizerDir,
      ...(served.model === undefined ? {} : { model: served.model }),
      ...(served.apiKey === undefined ? {} : { apiKey: served.apiKey }),
      ...(served.maxModelLen === undefined ? {} : { maxModelLen: served.maxModelLen }),
    }),
  );
}

/**
 * What runs in place of a NeMo Gym server the config names, said so that no one mistakes it for the
 * real one: a TypeScript port of a resources server (which `--nemo-gym DIR` swaps for NeMo Gym's own),
 * gymnast's agent server for NeMo Gym's agent, or gymnast's prompt for a served model's raw one.
 */
function standInNotice(plan: ServerPlan): string | undefined {
  const { instance } = plan;
  const real = `NeMo Gym's ${instance.type}/${instance.impl}`;
  if (plan.kind === 'resources' && plan.nemoGymPort)
    return `${instance.name}: gymnast's TypeScript port of ${real} runs in-process, not NeMo Gym's own ${instance.config.entrypoint ?? 'server'}; --nemo-gym DIR runs NeMo Gym's own from a Gym checkout`;
  if (plan.kind === 'agent')
    return `${instance.name}: gymnast's agent server (its exact-token loop) stands in for ${real}; a command: for it runs NeMo Gym's own`;
  if (plan.kind === 'served-model' && plan.rawPrompt) {
    return `${instance.name}: use_completions_api without render_chat_template: NeMo Gym's vllm_model would send the system and user text as the prompt, without the chat template; gymnast's ${plan.policy} renders the model's chat template, as for every prompt (render_chat_template: true has NeMo Gym render it too)`;
  }
  return undefined;
}

/**
 * Where each started server listens: its configured host (else `default_host`) and port, a free port
 * when none is given (or 0). Picked up front so the resolved config is whole before anything starts,
 * and below the ephemeral range (`pickFreePort`) so that no connection takes one in between; a process
 * listening on that very port still could, which fails that server's start, naming it.
 */
async function assignAddresses(config: GymConfig, plans: readonly ServerPlan[]): Promise<Map<string, { host: string; port: number }>> {
  const addresses = new Map<string, { host: string; port: number }>();
  for (const plan of plans) {
    if (plan.kind === 'served-model') continue;
    const host = plan.instance.config.host ?? config.defaultHost;
    const port = plan.instance.config.port || (await freePort(host, plan.instance.name));
    addresses.set(plan.instance.name, { host, port });
  }
  return addresses;
}

function freePort(host: string, name: string): Promise<number> {
  return pickFreePort(host).catch((error: unknown) => {
    throw new ServerStartError(name, `no free port on ${host}: ${reason(error)}`, { cause: error });
  });
}

/**
 * The interpolated config as NeMo Gym's parser completes it for its servers: each started server's host
 * and port written into its impl config, and the run-wide keys they read at startup (`withNemoGymGlobals`).
 */
function resolvedConfig(
  config: GymConfig,
  addresses: ReadonlyMap<string, { host: string; port: number }>,
  head: { host: string; port: number },
): Record<string, unknown> {
  const resolved = structuredClone(config.resolved);
  const forAgents = agentDefaults(resolved);
  for (const instance of config.instances) {
    const address = addresses.get(instance.name);
    if (!address) continue;
    const impls = (resolved[instance.name] as Record<string, Record<string, Record<string, unknown>>>)[instance.type]!;
    impls[instance.impl] = { ...(instance.type === 'responses_api_agents' ? forAgents : {}), ...impls[instance.impl], host: address.host, port: address.port };
  }
  return withNemoGymGlobals(resolved, { head, servers: [...addresses.values()].map((address) => address.port), cwd: process.cwd() });
}

/**
 * A port in use told what to do: a port the config sets is changed there; one gymnast picked free was
 * taken by another process in the moment before its server started, and the next start picks anew.
 */
function withPortHint(error: unknown, key: string, file: string, configured: boolean): unknown {
  return portInUseHint(
    error,
    configured ? `set ${key} in ${file} to another port, or to 0 for a free one` : 'another process took it after gymnast picked it free: start again',
  );
}

function reason(error: unknown): string {
  if (GymnastError.isInstance(error)) return `${error.kind}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
