import { collect } from '../collect/collect-run.js';
import { aggregateScalars } from '../collect/aggregate-scalars.js';
import { collectPaths } from '../collect/collect-paths.js';
import { MEGABYTE } from '../collect/collect-settings.js';
import type { RunFailures } from '../collect/failure-gate.js';
import { healthGate, healthGateLine } from '../collect/health/health-gate.js';
import type { HealthSummary } from '../collect/health/health-summary.js';
import { nemoGymAgent } from '../collect/nemo-gym-agent.js';
import { checkReadFilesApart, type ReadFile } from '../collect/output-paths.js';
import { loadPromptConfig } from '../collect/prompt-config.js';
import { AbortedError } from '../core/errors/aborted-error.js';
import { ConfigError } from '../core/errors/config-error.js';
import type { RolloutTransport } from '../collect/rollout-transport.js';
import { TensorBoardSink } from '../collect/tensorboard-sink.js';
import { runSampling } from '../core/sampling-params.js';
import { createPolicy } from '../policy/index.js';
import type { AgentEpisode } from '../servers/config/config-run.js';
import { loadHfTokenizer } from '../tokens/hf-tokenizer.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import type { CollectFlags } from './collect-flags.js';
import { interruptions } from './interruptions.js';
import { keyMetricsTable } from './key-metrics-table.js';
import { limitsLine } from './limits-line.js';
import { maxUnhealthyOf } from './max-unhealthy-option.js';
import { policySpec } from './policy-flags.js';
import { progressDisplay } from './progress-display.js';
import { resourcesAgents } from './resources-agents.js';
import { openTensorBoard } from './tensorboard-flag.js';

/**
 * One collection, its files written and its summary printed; resolves with how its rollouts ended and
 * its health, for the caller to hold against `--fail-on-error` and `--max-unhealthy` (as `gymnast
 * health` does), once everything is written. `remoteAgents` are the `--agent-server`s whose own model
 * samples their rows. `sampledBy` is the policy and limits of a config's agent server that runs every
 * row, owned by the config run; without it, the flags' policy is created for this collection and
 * closed after it.
 */
export async function runCollect(
  flags: CollectFlags,
  remoteAgents: readonly string[],
  sampledBy?: AgentEpisode,
): Promise<{ failures: RunFailures; health?: HealthSummary }> {
  // The library checks --input; the files only the CLI reads are checked here, before anything starts.
  const read = [
    { flag: '--prompt-config', path: flags.promptConfig },
    { flag: '--config', path: flags.config },
  ];
  checkReadFilesApart(
    collectPaths(flags.output),
    read.filter((file): file is ReadFile => file.path !== undefined),
  );
  // Read before any server starts: a bad file then leaves nothing running to close.
  const promptConfig = flags.promptConfig === undefined ? undefined : await loadPromptConfig(flags.promptConfig);
  let retries = 0;
  const countRetry = () => void (retries += 1);
  const runTimeout = flags.rolloutTimeout ?? flags.requestTimeout;
  const servers = [
    ...Object.entries(flags.agentServer).map(([name, url]) =>
      nemoGymAgent({
        name,
        urls: [url],
        onRetry: countRetry,
        ...(runTimeout === undefined ? {} : { timeoutMs: runTimeout * 1000 }),
        ...(flags.requestAttempts === undefined ? {} : { maxAttempts: flags.requestAttempts }),
      }),
    ),
    ...(await resourcesAgents(flags, countRetry)),
  ];
  const { policy, renderer, maxSeqLen, maxTurns, onMaxTokens, sampling, ownsPolicy } = await episodeFor(flags, sampledBy, countRetry).catch(
    async (error: unknown) => {
      await Promise.all(servers.map((server) => server.close()));
      throw error;
    },
  );
  const closeAll = () => Promise.all([...(ownsPolicy ? [policy.close()] : []), ...servers.map((server) => server.close())]);
  const remoteDecoder = await remoteTokenizer(flags, remoteAgents, sampledBy ? undefined : renderer.tokenizer).catch(async (error: unknown) => {
    await closeAll();
    throw error;
  });
  const coordinator = await queueCoordinator(flags).catch(async (error: unknown) => {
    await closeAll();
    throw error;
  });
  const tensorBoard = await tensorBoardSink(flags).catch(async (error: unknown) => {
    await Promise.all([closeAll(), coordinator?.close()]);
    throw error;
  });
  const display = await progressDisplay(() => retries, process.stderr, coordinator && (() => coordinator.workersAlive ?? 0));
  const { stopAdmitting, abort, dispose } = interruptions(display.notice);
  const summary = await collect({
    input: flags.input,
    output: flags.output,
    ...(flags.agent ? { agent: flags.agent } : {}),
    numRepeats: flags.numRepeats,
    ...(flags.addSeed ? { addSeed: true } : {}),
    ...(flags.seedField ? { seedField: flags.seedField } : {}),
    ...(flags.keepTaskIndices ? { keepTaskIndices: true } : {}),
    overrides: flags.set,
    ...(promptConfig ? { promptConfig } : {}),
    ...(flags.limit === undefined ? {} : { limit: flags.limit }),
    ...(flags.maxLineMb === undefined ? {} : { maxLineBytes: Math.ceil(flags.maxLineMb * MEGABYTE) }),
    concurrency: flags.concurrency,
    schedule: flags.schedule,
    policy,
    renderer,
    maxSeqLen,
    maxTurns,
    ...(onMaxTokens === undefined ? {} : { onMaxTokens }),
    sampling,
    ...(flags.rolloutTimeout === undefined ? {} : { rolloutTimeoutMs: flags.rolloutTimeout * 1000 }),
    ...(flags.resume ? { resume: true } : {}),
    ...(flags.overwrite ? { overwrite: true } : {}),
    maxAttempts: flags.maxAttempts,
    ...(flags.rolloutInfos ? { rolloutInfos: true } : {}),
    stopAdmitting,
    signal: abort,
    onProgress: display.update,
    onNotice: display.notice,
    agents: new Map(servers.map((server) => [server.name, server])),
    remoteAgents,
    // Its decode check reuses the policy's tokenizer, the one that made the ids: not loaded a second time.
    health: { decoder: renderer.tokenizer, ...(remoteDecoder ? { remoteDecoder } : {}) },
    ...(coordinator ? { transport: coordinator } : {}),
    ...(tensorBoard ? { sinks: [tensorBoard] } : {}),
  })
    .catch(async (error: unknown) => {
      // The event file keeps what it has; failing to close it must not hide why the run failed.
      await tensorBoard?.close().catch(() => undefined);
      throw error;
    })
    .finally(async () => {
      display.stop();
      dispose();
      await Promise.all([closeAll(), coordinator?.close()]);
    });
  await tensorBoard?.close(aggregateScalars(summary.aggregate));
  // For reading; scripts read the same numbers, unscaled, from the aggregate metrics file.
  process.stdout.write(keyMetricsTable(summary.aggregate));
  const metrics = summary.rollouts === 0 ? 'no aggregate metrics (no rollout succeeded)' : `metrics in ${summary.paths.aggregate}`;
  process.stdout.write(`${summary.rollouts} rollouts in ${summary.paths.output}, ${summary.failures} failures in ${summary.paths.failures}, ${metrics}\n`);
  process.stdout.write(`${limitsLine(flags.concurrency, { maxTurns, maxSeqLen, onMaxTokens })}\n`);
  const auto = summary.autoConcurrency;
  if (auto)
    process.stdout.write(
      `--concurrency auto: ${auto.lowest} to ${auto.highest} rollouts in flight, ${auto.last} at the end (${auto.polls} ${auto.polls === 1 ? 'poll' : 'polls'} of the servers' /metrics)\n`,
    );
  // An interrupted run must not look finished to a script that trains on its output next.
  if (stopAdmitting.aborted)
    throw new AbortedError(`interrupted before every rollout ran: the files hold what finished; the same command with --resume continues`);
  // The run's health in one line, checked in the pass that aggregated it (the verdicts and summary are
  // written beside it), with where it stands against --max-unhealthy. Imported after the run, as are
  // the agents of --resources-server: not paid for before the first request.
  const { health } = summary;
  if (health) {
    const { healthSummaryLine } = await import('../collect/health/health-summary.js');
    const max = maxUnhealthyOf(flags);
    process.stderr.write(`[collect] ${healthSummaryLine(health)}; ${healthGateLine(healthGate([health], max), max)}\n`);
    // Counted by the health pass, which reads every row anyway: no second pass over the output for it.
    if (health.zero_turn_rows > 0)
      process.stdout.write(
        `${health.zero_turn_rows} zero-turn rollouts (prompt-too-long: the prompt alone filled --max-seq-len): not scored, nothing to train on\n`,
      );
  }
  const failures = { planned: summary.planned, retryable: summary.retryable, givenUp: summary.givenUp, failuresFile: summary.paths.failures };
  return { failures, ...(health ? { health } : {}) };
}

/** With `--tensorboard DIR`, the sink of the progress scalars, its event file made before any rollout. */
async function tensorBoardSink(flags: CollectFlags): Promise<TensorBoardSink | undefined> {
  return flags.tensorboard === undefined ? undefined : new TensorBoardSink(await openTensorBoard(flags.tensorboard));
}

/**
 * With `--queue`, the coordinator's side of the queue, connected before any work (a Redis that cannot be
 * reached is one line naming it). Imported only then: a run without it does not load BullMQ.
 */
async function queueCoordinator(flags: CollectFlags): Promise<(RolloutTransport & { workersAlive: number | undefined; close(): Promise<void> }) | undefined> {
  if (flags.queue === undefined) return undefined;
  if (flags.concurrency === 'auto')
    throw new ConfigError(
      '--concurrency auto reads the servers this process samples from: with --queue the workers sample; give -c N (the rollouts the queue holds at once)',
    );
  if (Object.keys(flags.agentServer).length > 0) throw new ConfigError('--agent-server rows are run by this process: they cannot go through --queue yet');
  const [{ redisTarget }, { QueueCoordinator }] = await Promise.all([import('../queue/redis-target.js'), import('../queue/queue-coordinator.js')]);
  return QueueCoordinator.connect(redisTarget(flags.queue), {
    ...(flags.redisTimeout === undefined ? {} : { reconnectForMs: flags.redisTimeout * 1000 }),
    onNotice: (message) => process.stderr.write(`[collect] ${message}\n`),
  });
}

/**
 * The tokenizer for the health checks of the rows `--agent-server`s sampled with their own model:
 * `--tokenizer DIR`, the one `policyTokenizer` was loaded from when the flags' server policy used it,
 * else loaded here (before any rollout, so a bad folder is refused first). None without `--tokenizer`.
 */
async function remoteTokenizer(flags: CollectFlags, remoteAgents: readonly string[], policyTokenizer: Tokenizer | undefined): Promise<Tokenizer | undefined> {
  if (remoteAgents.length === 0 || flags.tokenizer === undefined) return undefined;
  if (policyTokenizer && flags.policy !== 'embedded') return policyTokenizer;
  return loadHfTokenizer(flags.tokenizer);
}

/** The flags' policy and limits, created here; or an agent server's, which its config run owns. */
async function episodeFor(flags: CollectFlags, sampledBy: AgentEpisode | undefined, onRetry: () => void): Promise<AgentEpisode & { ownsPolicy: boolean }> {
  if (sampledBy) return { ...sampledBy, ownsPolicy: false };
  const { policy, renderer, maxModelLen } = await createPolicy(policySpec(flags), { onRouterEvent: (event) => event.type === 'retry' && onRetry() });
  return {
    policy,
    renderer,
    maxSeqLen: flags.maxSeqLen ?? maxModelLen,
    maxTurns: flags.maxTurns,
    onMaxTokens: flags.onMaxTokens,
    sampling: runSampling(flags),
    ownsPolicy: true,
  };
}
