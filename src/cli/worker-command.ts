import { Command } from 'commander';
import { builtinAgent } from '../collect/agent.js';
import { collectDefaults } from '../collect/collect-settings.js';
import { createPolicy } from '../policy/index.js';
import { redisTarget } from '../queue/redis-target.js';
import { runQueueWorker } from '../queue/queue-worker.js';
import { parseAgentServer, parseConcurrency, parseRequestAttempts, parseRetryBudget, parseSeconds } from './flag-parsers.js';
import { withEpisodeOptions } from './episode-options.js';
import { interruptions } from './interruptions.js';
import { policySpec, withPolicyOptions, type PolicyFlags } from './policy-flags.js';
import { resourcesAgents } from './resources-agents.js';

interface WorkerFlags extends PolicyFlags {
  queue: string;
  concurrency: number;
  stallTimeout: number;
  redisTimeout?: number;
  resourcesServer: Record<string, string>;
  gymnasiumServer: Record<string, string>;
  toolCallParser?: string;
}

/** Collect's flags that shape a rollout: a worker takes them from the run (the coordinator's), never its own. */
const EPISODE_FLAGS = new Set(['--max-turns', '--max-tokens', '--on-max-tokens', '--temperature', '--seed', '--rollout-timeout']);

/** The default stall timeout (s): how long a hard-killed worker's jobs wait before they run again. */
const STALL_TIMEOUT_S = 30;

/**
 * `gymnast worker`: runs the rollouts `gymnast collect --queue` enqueues, on any number of machines.
 * The run's settings (turns, budget, sampling) come from the coordinator through Redis; the policy and
 * environment servers are this worker's flags, as collect's.
 */
export function workerCommand(): Command {
  const command = new Command('worker')
    .description('run the rollouts of `gymnast collect --queue` from Redis: start as many as you like, on any machine')
    .requiredOption('--queue <redis-url>', 'the Redis the coordinator enqueues to: redis://[user:password@]HOST:PORT/DB')
    .option('-c, --concurrency <n>', 'rollouts in flight on this worker', parseConcurrency, collectDefaults.concurrency)
    .option(
      '--stall-timeout <seconds>',
      "a job's lock, renewed while this worker lives: a worker killed hard has its jobs run again after this long",
      parseSeconds,
      STALL_TIMEOUT_S,
    )
    .option('--redis-timeout <seconds>', 'how long a lost connection to Redis is retried (a restart) before the worker stops (default 30)', parseSeconds);
  // Collect's episode flags are taken so that a worker can be started with the coordinator's command line; the run's settings win.
  const withEpisode = withEpisodeOptions(withPolicyOptions(command)).option(
    '--rollout-timeout <seconds>',
    "as collect's: taken from the run, given here only to be told so",
    parseSeconds,
  );
  const RUN_SETTINGS = withEpisode.options.filter((option) => EPISODE_FLAGS.has(option.long ?? ''));
  for (const option of RUN_SETTINGS) option.hideHelp();
  return withEpisode
    .option('--api-key <key>', 'sent as Authorization: Bearer (default: $GYMNAST_API_KEY or $OPENAI_API_KEY)')
    .option('--request-timeout <seconds>', 'deadline per HTTP request to a server, each retry its own (default: 300)', parseSeconds)
    .option('--request-attempts <n>', 'attempts per HTTP request on connection errors, timeouts, 429, 5xx (default: 4)', parseRequestAttempts)
    .option('--retry-budget <fraction>', 'retries allowed per request sent, shared by all requests, plus 10 (default: 0.2)', parseRetryBudget)
    .option(
      '--resources-server <name=url>',
      "as collect's: rows of agent <name> run gymnast's loop against this NeMo Gym resources server",
      parseAgentServer,
      {},
    )
    .option('--gymnasium-server <name=url>', "as collect's: rows of agent <name> run gymnast's loop against this gymnasium-style server", parseAgentServer, {})
    .option('--tool-call-parser <name>', 'how the model writes tool calls, for --resources-server and --gymnasium-server (default hermes)')
    .action(async (flags: WorkerFlags, command: Command) => {
      const target = redisTarget(flags.queue);
      const notice = (message: string) => void process.stderr.write(`[worker] ${message}\n`);
      const ignored = RUN_SETTINGS.filter((option) => command.getOptionValueSource(option.attributeName()) === 'cli').map((option) => option.long);
      if (ignored.length > 0) notice(`${ignored.join(', ')}: the run's own (the coordinator's flags) are used, not this worker's`);
      const servers = await resourcesAgents({ ...flags, agentServer: {} }, () => undefined);
      const { policy, renderer } = await createPolicy(policySpec(flags));
      const agents = new Map(servers.map((server) => [server.name, server]));
      const { stopAdmitting, abort, dispose } = interruptions(
        notice,
        'stopping: finishing the rollouts in hand (a second signal releases them to other workers)',
      );
      try {
        const summary = await runQueueWorker(target, {
          concurrency: flags.concurrency,
          policy,
          renderer,
          agent: (name) => agents.get(name) ?? builtinAgent(name),
          stallTimeoutMs: flags.stallTimeout * 1000,
          ...(flags.redisTimeout === undefined ? {} : { reconnectForMs: flags.redisTimeout * 1000 }),
          stop: stopAdmitting,
          abort,
          onNotice: notice,
        });
        notice(`stopped: ${summary.committed} rollouts committed, ${summary.duplicates} duplicates dropped`);
      } finally {
        dispose();
        await Promise.all([policy.close(), ...servers.map((server) => server.close())]);
      }
    });
}
