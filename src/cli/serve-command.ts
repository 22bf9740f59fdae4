import { Command, InvalidArgumentError } from 'commander';
import { parsePort, parseSeconds } from './flag-parsers.js';
import { checkHeaderFlag } from './policy-flags.js';
import { portFlagHint } from './port-flag-hint.js';
import { untilSignalled } from './until-signalled.js';
import { ConfigError } from '../core/errors/config-error.js';
import { EmbeddedPolicy } from '../policy/embedded/embedded-policy.js';
import { EMBEDDED_MAX_BODY_BYTES, EMBEDDED_MODEL_NAME, embeddedModelServer } from '../servers/openai-compatible/embedded-model-server.js';
import { DEFAULT_UPDATE_DEADLINE_MS } from '../servers/openai-compatible/weights-routes.js';
import { builtinEnvironments } from '../environments/registry.js';
import type { JsonServer } from '../servers/http-server/json-server.js';
import { exampleServers } from '../servers/resources/examples/example-servers.js';
import { resourcesServerFor as servedResources, servableResourcesNames } from '../servers/resources/resources-server-for.js';
import { serveConfig } from './serve-config-command.js';
import { nemoGymOption } from './nemo-gym-option.js';

interface ServeResourcesOptions {
  host: string;
  port: number;
  apiKey?: string;
}
import { serveAgentCommand } from './serve-agent-command.js';
import { serveSimCommand } from './serve-sim-command.js';
import { MEGABYTE } from '../collect/collect-settings.js';

interface ServeModelOptions {
  embedded?: boolean;
  host: string;
  port: number;
  maxBodyMb?: number;
  apiKey?: string;
  updateDeadline: number;
}

const EMBEDDED_MAX_BODY_MB = EMBEDDED_MAX_BODY_BYTES / MEGABYTE;

export function serveCommand(): Command {
  const serve = new Command('serve')
    .description('run gymnast servers: one (model, resources, agent), or every server a NeMo Gym-style config names (--config)')
    .option('--config <file>', "start every server of a NeMo Gym-style YAML config and a head server (NeMo Gym's ng_run); Ctrl-C stops all")
    .option('--api-key <key>', "with --config: require Authorization: Bearer <key> on the head server (NeMo Gym's own clients send none)")
    .addOption(nemoGymOption())
    .enablePositionalOptions()
    .action(async (options: { config?: string; apiKey?: string; nemoGym?: string }) => {
      if (!options.config) {
        serve.help({ error: true });
      }
      await serveConfig(options.config!, {
        ...(options.apiKey === undefined ? {} : { headApiKey: options.apiKey }),
        ...(options.nemoGym === undefined ? {} : { nemoGym: options.nemoGym }),
      });
    });
  serve
    .command('model')
    .description('serve a model over an OpenAI-compatible API with vLLM token fields (/v1/completions, /v1/chat/completions, /tokenize, …)')
    .option('--embedded', 'serve the embedded CPU model (the only model gymnast can serve itself)')
    .option('--host <host>', 'interface to bind; loopback unless you mean to expose it', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', parsePort, 8000)
    .option(
      '--max-body-mb <mb>',
      `refuse request bodies over this many MiB with 413 (default: ${EMBEDDED_MAX_BODY_MB} for the embedded model, whose context is 256 tokens)`,
      megabytes,
    )
    .option('--api-key <key>', 'require Authorization: Bearer <key> on every request but /health (as vllm serve --api-key)')
    .option(
      '--update-deadline <seconds>',
      'POST /update_weights waits this long for the generations decoding on the old weights, then answers 503 and changes nothing',
      parseSeconds,
      DEFAULT_UPDATE_DEADLINE_MS / 1000,
    )
    .action(async (options: ServeModelOptions) => {
      if (!options.embedded) throw new ConfigError('say which model to serve: --embedded');
      if (options.apiKey !== undefined) checkHeaderFlag('--api-key', options.apiKey);
      const policy = await EmbeddedPolicy.load();
      const server = embeddedModelServer(policy, {
        maxBodyBytes: Math.floor((options.maxBodyMb ?? EMBEDDED_MAX_BODY_MB) * MEGABYTE),
        host: options.host,
        port: options.port,
        updateDeadlineMs: options.updateDeadline * 1000,
        ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      });
      const url = await server.start().catch(portFlagHint);
      process.stdout.write(
        `serving the embedded model at ${url}/v1 (model "${EMBEDDED_MODEL_NAME}", context ${policy.maxModelLen} tokens, tool calls read from its <tool_call> blocks); Ctrl-C stops\n`,
      );
      await untilSignalled(server);
    });
  serve.addCommand(serveAgentCommand());
  serve.addCommand(serveSimCommand());
  serve
    .command('resources')
    .argument(
      '<env>',
      `a built-in environment (${builtinEnvironments.map((entry) => entry.name).join(', ')}) or a ported NeMo Gym example (${Object.keys(exampleServers).join(', ')})`,
    )
    .description('serve an environment as a NeMo Gym resources server (/seed_session, /<tool>, /verify, /reset, /step, /aggregate_metrics)')
    .option('--host <host>', 'interface to bind; loopback unless you mean to expose it', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', parsePort, 0)
    .option('--api-key <key>', 'require Authorization: Bearer <key> on every request')
    .action(async (name: string, options: ServeResourcesOptions) => {
      if (options.apiKey !== undefined) checkHeaderFlag('--api-key', options.apiKey);
      const listen = { host: options.host, port: options.port, ...(options.apiKey ? { apiKey: options.apiKey } : {}) };
      const server = resourcesServerFor(name, listen);
      const url = await server.start().catch(portFlagHint);
      process.stdout.write(`serving ${name} as a NeMo Gym resources server at ${url}; Ctrl-C stops\n`);
      await untilSignalled(server);
    });
  return serve;
}

/** A ported NeMo Gym example by its NeMo Gym name, else a built-in environment through the generic mapping. */
function resourcesServerFor(name: string, listen: { host: string; port: number; apiKey?: string }): JsonServer {
  const server = servedResources(name, listen);
  if (!server) throw new ConfigError(`no environment "${name}": try ${servableResourcesNames().join(', ')}`);
  return server;
}

function megabytes(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('expected a positive number of MiB');
  return number;
}
