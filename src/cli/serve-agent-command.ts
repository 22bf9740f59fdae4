import { Command } from 'commander';
import { builtinAgent } from '../collect/agent.js';
import { ConfigError } from '../core/errors/config-error.js';
import { runSampling } from '../core/sampling-params.js';
import { createPolicy } from '../policy/index.js';
import type { Routing } from '../http-client/router/routing.js';
import { withEpisodeOptions } from './episode-options.js';
import { checkHeaderFlag, policySpec, withPolicyOptions } from './policy-flags.js';
import { AgentServer } from '../servers/agent/agent-server.js';
import { parseConcurrency, parsePort, parseSeconds } from './flag-parsers.js';
import { limitsLine } from './limits-line.js';
import { portFlagHint } from './port-flag-hint.js';
import { untilSignalled } from './until-signalled.js';

interface ServeAgentFlags {
  env: string;
  policy: string;
  baseUrl: string[];
  model?: string;
  tokenizer?: string;
  routing?: Routing;
  policyApiKey?: string;
  host: string;
  port: number;
  apiKey?: string;
  maxTurns: number;
  maxSeqLen?: number;
  maxTokens: number;
  onMaxTokens: 'continue' | 'end';
  temperature: number;
  seed?: number;
  concurrency: number;
  runTimeout?: number;
}

/** `gymnast serve agent`: gymnast's episode loop over a built-in environment, as a NeMo Gym agent server (`/run`, `/aggregate_metrics`). */
export function serveAgentCommand(): Command {
  const command = new Command('agent')
    .description(
      "serve gymnast's episode loop over a built-in environment as a NeMo Gym agent server (POST /run, POST /aggregate_metrics), so ng_collect_rollouts can drive it",
    )
    .requiredOption('--env <name>', 'the built-in environment (see gymnast environments)');
  const withPolicy = withPolicyOptions(command)
    .option('--policy-api-key <key>', 'sent to the inference server as Authorization: Bearer (default: $GYMNAST_API_KEY or $OPENAI_API_KEY)')
    .option('--host <host>', 'interface to bind; loopback unless you mean to expose it', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', parsePort, 8000)
    .option('--api-key <key>', 'require Authorization: Bearer <key> on every request to this server');
  return withEpisodeOptions(withPolicy)
    .option('-c, --concurrency <n>', 'rollouts running at once; more /run requests queue', parseConcurrency, 32)
    .option('--run-timeout <seconds>', 'deadline of one /run, queueing included, at most a day (default: 600)', parseSeconds)
    .action(async (flags: ServeAgentFlags) => {
      const agent = builtinAgent(flags.env);
      if (!agent) throw new ConfigError(`unknown --env "${flags.env}" (see gymnast environments)`);
      if (flags.apiKey !== undefined) checkHeaderFlag('--api-key', flags.apiKey);
      const { policy, renderer, maxModelLen } = await createPolicy(policySpec({ ...flags, apiKey: flags.policyApiKey }, '--policy-api-key'));
      const episode = {
        policy,
        renderer,
        maxTurns: flags.maxTurns,
        maxSeqLen: flags.maxSeqLen ?? maxModelLen,
        onMaxTokens: flags.onMaxTokens,
        sampling: runSampling(flags),
      };
      const server = new AgentServer({
        agent,
        episode,
        concurrency: flags.concurrency,
        ...(flags.runTimeout === undefined ? {} : { runTimeoutMs: flags.runTimeout * 1000 }),
        ...(flags.apiKey === undefined ? {} : { apiKey: flags.apiKey }),
        host: flags.host,
        port: flags.port,
      });
      const url = await server.start().catch(async (error: unknown) => {
        await policy.close();
        portFlagHint(error);
      });
      // At start, as collect says them at its end: every rollout this server runs goes by them.
      process.stderr.write(`${limitsLine(flags.concurrency, episode)}\n`);
      process.stdout.write(`serving agent "${agent.name}" (policy ${policy.name}) at ${url}: POST /run, POST /aggregate_metrics; Ctrl-C stops\n`);
      await untilSignalled(server, policy);
    });
}
