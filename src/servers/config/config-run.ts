import { createServer } from 'node:net';
import { stringify } from 'yaml';
import { builtinAgent, type Agent } from '../../collect/agent.js';
import { resourcesAgent } from '../../collect/resources-agent.js';
import { ServerStartError } from '../../core/errors/server-start-error.js';
import { GymnastError } from '../../core/errors/gymnast-error.js';
import { redactUrls } from '../../util/redact-urls.js';
import { runSampling } from '../../core/sampling-params.js';
import { createPolicy, parsePolicySpec, type CreatedPolicy } from '../../policy/create-policy.js';
import type { EmbeddedPolicy } from '../../policy/embedded/embedded-policy.js';
import { AgentServer } from '../agent/agent-server.js';
import { embeddedModelServer } from '../openai-compatible/embedded-model-server.js';
import { resourcesServerFor } from '../resources/resources-server-for.js';
import { ExternalServer } from './external-server.js';
import { headServer, type ServerInstanceInfo } from './head-server.js';
import { planServers, type AgentPlan, type ServerPlan, type ServedModelPlan } from './plan-servers.js';
import type { GymConfig, ServerInstance } from './server-config.js';
import { portInUseHint } from '../../core/errors/listen-error.js';

export interface ConfigRunOptions {
  /** Where external servers' prefixed output lines go (default: stderr). */
  output?: (line: string) => void;
  /** Grace period between SIGTERM and SIGKILL for external servers (default 5 s). */
  graceMs?: number;
  /** The bearer token the head server requires (`gymnast serve --config X --api-key K`); none by default, as in NeMo Gym. */
  headApiKey?: string;
}

/** Every server of a config, running, and the head server that lists them. */
export interface ConfigRun {
  headUrl: string;
  /** In start order; a served `vllm_model` (not started by gymnast) is listed with its base URL. */
  servers: readonly ServerInstanceInfo[];
  /** The config as the head server publishes it: interpolated, every started server's host and port filled in. */
  resolvedConfig(): Record<string, unknown>;
  /** Stops every server, external processes included (SIGTERM, then SIGKILL); safe to call twice. */
  close(): Promise<void>;
}

/** Models and external processes first, then resources servers, then the agents that use them. */
const START_ORDER: Record<ServerPlan['kind'], number> = { external: 0, 'embedded-model': 0, 'served-model': 0, resources: 1, agent: 2 };

interface Started {
  info: ServerInstanceInfo;
  close(): Promise<void>;
}

/**
 * Starts every server a config names (NeMo Gym's `ng_run`): ports left out are picked free on their
 * host up front, so the resolved config an external server is handed (NEMO_GYM_CONFIG_DICT) already
 * says where everything listens. One server failing stops the others and throws a `ServerStartError`
 * naming it; a config gymnast cannot run is a `ConfigFileError` before anything starts.
 */
export async function startConfigRun(config: GymConfig, options: ConfigRunOptions = {}): Promise<ConfigRun> {
  const plans = planServers(config).sort((a, b) => START_ORDER[a.kind] - START_ORDER[b.kind]);
  const addresses = await assignAddresses(config, plans);
  const started: Started[] = [];
  const urls = new Map<string, string>();
  const policies = new Map<string, Promise<CreatedPolicy>>();
  const stopAll = async () => {
    for (const server of started.splice(0).reverse()) await server.close().catch(() => undefined);
    for (const policy of policies.values()) await policy.then((created) => created.policy.close(), () => undefined);
    policies.clear();
  };

  let resolved: Record<string, unknown> = {};
  const head = headServer({ ...config.headServer, ...(options.headApiKey === undefined ? {} : { apiKey: options.headApiKey }), instances: () => started.map((server) => server.info), config: () => resolved });
  const headUrl = await head.start().catch((error: unknown) => {
    throw new ServerStartError('head_server', reason(withPortHint(error, 'head_server.port', config.file, true)), { cause: error });
  });
  resolved = resolvedConfig(config, addresses, { host: config.headServer.host, port: Number(new URL(headUrl).port) });
  try {
    for (const plan of plans) {
      const address = addresses.get(plan.instance.name);
      const context = { config: resolved, options, policies, address, urls };
      const server = await startOne(plan, context).catch((error: unknown) => {
        if (error instanceof ServerStartError) throw error;
        throw new ServerStartError(plan.instance.name, reason(withPortHint(error, `${plan.instance.path}.port`, config.file, Boolean(plan.instance.config.port))), { cause: error });
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
    close: () => (closing ??= stopAll().then(() => head.close())),
  };
}

interface StartContext {
  config: Record<string, unknown>;
  options: ConfigRunOptions;
  policies: Map<string, Promise<CreatedPolicy>>;
  address: { host: string; port: number } | undefined;
  /** The URLs of the servers started so far, by name. */
  urls: ReadonlyMap<string, string>;
}

async function startOne(plan: ServerPlan, context: StartContext): Promise<Started> {
  const { instance } = plan;
  const info = (url: string, pid?: number): ServerInstanceInfo => ({ name: instance.name, type: instance.type, impl: instance.impl, url, ...(pid === undefined ? {} : { pid }) });
  const listen = context.address!;
  switch (plan.kind) {
    case 'external': {
      const server = new ExternalServer({
        name: instance.name,
        command: plan.command,
        ...listen,
        env: { ...instance.config.env, NEMO_GYM_CONFIG_DICT: stringify(context.config), NEMO_GYM_CONFIG_PATH: instance.name },
        ...(instance.config.cwd === undefined ? {} : { cwd: instance.config.cwd }),
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
      const { policy } = await policyFor(plan.instance, context);
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
  const { policy, renderer, maxModelLen } = await policyFor(plan.model.instance, context, plan.model.kind === 'served-model' ? plan.model : undefined);
  const { settings } = plan;
  const { agent, close } = agentFor(plan, context);
  const server = new AgentServer({
    agent,
    episode: {
      policy,
      renderer,
      maxTurns: settings.max_turns,
      maxSeqLen: settings.max_seq_len ?? maxModelLen,
      onMaxTokens: settings.on_max_tokens,
      sampling: runSampling({ temperature: settings.temperature, maxTokens: settings.max_tokens, seed: settings.seed }),
    },
    concurrency: settings.concurrency,
    ...(settings.run_timeout_seconds === undefined ? {} : { runTimeoutMs: settings.run_timeout_seconds * 1000 }),
    ...context.address!,
  });
  const stop = () => server.close().then(close);
  return { info: info(await server.start().catch(async (error: unknown) => { await close(); throw error; })), close: stop };
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

/** One policy per model instance, shared by its server and every agent using it; closed when the run stops. */
function policyFor(model: ServerInstance, context: StartContext, served?: ServedModelPlan): Promise<CreatedPolicy> {
  let created = context.policies.get(model.name);
  if (!created) {
    const spec = served
      ? parsePolicySpec({
          kind: served.policy,
          baseUrls: served.baseUrls,
          tokenizerDir: served.tokenizer,
          ...(served.model === undefined ? {} : { model: served.model }),
          ...(served.apiKey === undefined ? {} : { apiKey: served.apiKey }),
          ...(served.maxModelLen === undefined ? {} : { maxModelLen: served.maxModelLen }),
        })
      : parsePolicySpec({ kind: 'embedded' });
    created = createPolicy(spec);
    context.policies.set(model.name, created);
  }
  return created;
}

/**
 * Where each started server listens: its configured host (else `default_host`) and port, a free port
 * when none is given (or 0). Picked up front so the resolved config is whole before anything starts;
 * another process could take a port in between, which fails that server's start, naming it.
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
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error) => reject(new ServerStartError(name, `no free port on ${host}: ${reason(error)}`, { cause: error })));
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The interpolated config with each started server's host and port written into its impl config. */
function resolvedConfig(config: GymConfig, addresses: ReadonlyMap<string, { host: string; port: number }>, head: { host: string; port: number }): Record<string, unknown> {
  const resolved = structuredClone(config.resolved);
  for (const instance of config.instances) {
    const address = addresses.get(instance.name);
    if (!address) continue;
    const impl = ((resolved[instance.name] as Record<string, Record<string, Record<string, unknown>>>)[instance.type]!)[instance.impl] ?? {};
    ((resolved[instance.name] as Record<string, Record<string, unknown>>)[instance.type]!)[instance.impl] = { ...impl, host: address.host, port: address.port };
  }
  resolved.head_server = head;
  return resolved;
}

/**
 * A port in use told what to do: a port the config sets is changed there; one gymnast picked free was
 * taken by another process in the moment before its server started, and the next start picks anew.
 */
function withPortHint(error: unknown, key: string, file: string, configured: boolean): unknown {
  return portInUseHint(error, configured ? `set ${key} in ${file} to another port, or to 0 for a free one` : 'another process took it after gymnast picked it free: start again');
}

function reason(error: unknown): string {
  if (GymnastError.isInstance(error)) return `${error.kind}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
