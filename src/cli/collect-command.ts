import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { collect, type CollectProgress } from '../collect/collect-run.js';
import type { Agent } from '../collect/agent.js';
import { nemoGymAgent } from '../collect/nemo-gym-agent.js';
import type { ResourcesProtocol } from '../collect/resources-agent.js';
import { defaultRetryBudget } from '../http-client/router/retry-budget.js';
import { toolCallParsers } from '../environments/tool-call-parser.js';
import { loadPromptConfig } from '../collect/prompt-config.js';
import type { NumRepeats } from '../collect/row-planner.js';
import type { SeedField } from '../collect/row-planner.js';
import { assertFailuresWithin, type RunFailures } from '../collect/failure-gate.js';
import { assertHealthy, healthGate, healthGateLine, type MaxUnhealthy } from '../collect/health/health-gate.js';
import type { HealthSummary } from '../collect/health/health-summary.js';
import { AbortedError } from '../core/errors/aborted-error.js';
import { ConfigError } from '../core/errors/config-error.js';
import { runSampling } from '../core/sampling-params.js';
import { createPolicy } from '../policy/index.js';
import { loadHfTokenizer } from '../tokens/hf-tokenizer.js';
import type { Tokenizer } from '../tokens/tokenizer.js';
import { collectPaths } from '../collect/collect-paths.js';
import { MAX_CONCURRENCY, MEGABYTE } from '../collect/collect-settings.js';
import { checkReadFilesApart, makeOutputFolder, type ReadFile } from '../collect/output-paths.js';
import { refuseToErase } from '../collect/refuse-to-erase.js';
import { DATASET_TYPES, type DatasetSplit } from '../servers/config/dataset-types.js';
import type { AgentEpisode } from '../servers/config/config-run.js';
import { withEpisodeOptions } from './episode-options.js';
import { applyNemoGymOverrides } from './nemo-gym-overrides.js';
import { limitsLine } from './limits-line.js';
import { configValue, describeValue } from './option-value.js';
import { maxUnhealthyOf, maxUnhealthyOption } from './max-unhealthy-option.js';
import { nemoGymOption } from './nemo-gym-option.js';
import { policySpec, withPolicyOptions } from './policy-flags.js';
import {
  parseAgentServer,
  parseConcurrency,
  parseFailureLimit,
  parseKeyValue,
  parseLimit,
  parseMaxAttempts,
  parseMaxLineMb,
  parseNumRepeats,
  parseRequestAttempts,
  parseRetryBudget,
  parseSchedule,
  parseSeconds,
  parseSeedField,
} from './flag-parsers.js';

interface CollectFlags {
  input: string;
  output: string;
  agent?: string;
  policy: string;
  baseUrl: string[];
  model?: string;
  apiKey?: string;
  tokenizer?: string;
  limit?: number;
  maxLineMb?: number;
  numRepeats: NumRepeats;
  addSeed?: boolean;
  seedField?: SeedField;
  keepTaskIndices?: boolean;
  concurrency: number;
  schedule: 'async' | 'lockstep';
  set: Record<string, unknown>;
  promptConfig?: string;
  config?: string;
  maxTurns: number;
  maxSeqLen?: number;
  maxTokens: number;
  onMaxTokens: 'continue' | 'end';
  temperature: number;
  seed?: number;
  rolloutTimeout?: number;
  requestTimeout?: number;
  requestAttempts?: number;
  retryBudget?: number;
  resume?: boolean;
  overwrite?: boolean;
  maxAttempts: number;
  failOnError?: number;
  maxUnhealthy?: MaxUnhealthy;
  agentServer: Record<string, string>;
  resourcesServer: Record<string, string>;
  gymnasiumServer: Record<string, string>;
  toolCallParser?: string;
  rolloutInfos?: boolean;
  reuseDataPreparation?: boolean;
  nemoGym?: string;
}

export function collectCommand(): Command {
  const command = new Command('collect')
    .description('run rollouts for every row of a NeMo Gym JSONL dataset and write them, with failures and aggregate metrics')
    .option('-i, --input <file>', 'JSONL rows: responses_create_params (+ agent_ref, task fields)')
    .option('-o, --output <file>', 'rollouts JSONL; <stem>_materialized_inputs.jsonl, _failures.jsonl, _aggregate_metrics.json go beside it')
    .option('-a, --agent <name>', 'agent for rows without agent_ref (built-in: see gymnast environments)');
  const withPolicy = withPolicyOptions(command)
    .option('--api-key <key>', 'sent as Authorization: Bearer (default: $GYMNAST_API_KEY or $OPENAI_API_KEY)')
    .option('--limit <n>', 'only the first N lines of the input', parseLimit)
    .option('--max-line-mb <n>', 'refuse input lines longer than this many MB (MiB; default 16)', parseMaxLineMb)
    .option('--num-repeats <n|json>', 'rollouts per row: a number, or {"agent": k, "_default": k}', parseNumRepeats, 1)
    .option('--add-seed', 'seed each rollout with its index, in the request field --seed-field names')
    .option('--seed-field <where>', "where --add-seed puts the seed: request (responses_create_params.seed, as NeMo Gym's collector did before PR #1099; the default) or extra-body (metadata.extra_body, as it does since: its agent servers refuse a top-level seed, vLLM reads extra_body)", parseSeedField)
    .option('--keep-task-indices', "keep the _ng_task_index a row already has (NeMo Gym since PR #1314: shards of one dataset numbered apart); by default every row's task is its raw line, as NeMo Gym's collector numbers it")
    .option('-c, --concurrency <n>', `rollouts in flight (the batch size with --schedule lockstep; NeMo Gym: unbounded; at most ${MAX_CONCURRENCY})`, parseConcurrency, 32)
    .option('--schedule <kind>', 'async (each rollout at its own pace) or lockstep (each turn waits for the batch, as NeMo RL)', parseSchedule, 'async')
    .option('--set <key=value>', 'override responses_create_params (dotted keys nest; JSON values), repeatable', parseKeyValue, {})
    .option('--prompt-config <file>', "NeMo Gym prompt YAML (system/user templates over the row's fields)");
  return withEpisodeOptions(withPolicy)
    .option('--rollout-timeout <seconds>', 'deadline per rollout, at most a day (default: none; each request still has its own)', parseSeconds)
    .option('--request-timeout <seconds>', 'deadline per HTTP request to a server, each retry its own, at most a day (default: 300)', parseSeconds)
    .option('--request-attempts <n>', 'attempts per HTTP request on connection errors, timeouts, 429, 5xx and replies the sampler could not have produced (default: 4; agent servers: 3)', parseRequestAttempts)
    .option('--retry-budget <fraction>', 'retries allowed per request sent, shared by all requests, plus 10 (default: 0.2)', parseRetryBudget)
    .option('--resume', 'continue this output in place: done rollouts are kept, failed ones retried; refuses if the plan or config changed')
    .option('--overwrite', 'start afresh over an output that already holds rows, erasing them and their failures (without it, or --resume, collect refuses)')
    .option('--max-attempts <n>', 'attempts per rollout before its failure is final (with --resume)', parseMaxAttempts, 3)
    .option('--agent-server <name=url>', "a NeMo Gym agent server (POST /run) to run rows of agent <name> with its own model, repeatable; their tokens are decode-checked with --tokenizer DIR, else not", parseAgentServer, {})
    .option('--resources-server <name=url>', "a NeMo Gym resources server (/seed_session, /<tool>, /verify): rows of agent <name> run gymnast's loop against it, repeatable", parseAgentServer, {})
    .option('--gymnasium-server <name=url>', "a NeMo Gym gymnasium-style server (/reset, /step, /close): rows of agent <name> run gymnast's loop against it, repeatable", parseAgentServer, {})
    .option('--tool-call-parser <name>', `how the model writes tool calls, for --resources-server and --gymnasium-server: ${toolCallParsers.map((parser) => parser.name).join(', ')} (default hermes)`)
    .option('--rollout-infos', "list every rollout in its task's group in the aggregate file (NeMo Gym's rollout_infos: 14 lines per rollout)")
    .option('--fail-on-error <count|fraction>', 'how many rollouts may end without a success (e.g. 10, or 0.05 of them; default 0) before collect exits non-zero: 75 while --resume would retry some of them, else 1', parseFailureLimit)
    .addOption(maxUnhealthyOption())
    .option('--config <file>', 'YAML or JSON with any of these options by name (e.g. num-repeats: 4); flags given on the command line win. With --split: a NeMo Gym config (servers and datasets)')
    .option('--reuse-data-preparation', "with --split: take a dataset already prepared in the --output folder's preprocessed_datasets as it is, not collated again (NeMo Gym's reuse_existing_data_preparation)")
    .option('--split <name>', `with --config X.yaml in NeMo Gym's shape: start its servers and collect every dataset of this split (${DATASET_TYPES.join(', ')}) through its agents, one output per dataset in the --output folder`, parseSplit)
    .addOption(nemoGymOption())
    .argument('[overrides...]', "NeMo Gym's ng_collect_rollouts overrides, as their flags: +agent_name=… +input_jsonl_fpath=… +output_jsonl_fpath=… +limit=100 +num_repeats=4 +num_samples_in_parallel=10 +resume_from_cache=true +num_repeats_add_seed=true +prompt_config=… +responses_create_params.temperature=0.6")
    .action(async (overrides: string[], _flags: CollectFlags, command: Command) => {
      for (const notice of applyNemoGymOverrides(command, overrides)) process.stderr.write(`[collect] ${notice}\n`);
      seedFieldNotice(command.opts<CollectFlags>());
      const split = command.getOptionValue('split') as DatasetSplit | undefined;
      if (split !== undefined) return collectSplit(command, split);
      if (command.getOptionValue('reuseDataPreparation')) throw new ConfigError('--reuse-data-preparation reuses the datasets --split prepared: give --split (and --config) too, or drop it');
      const flags = await withConfigFile(command);
      if (flags.nemoGym !== undefined) throw new ConfigError('--nemo-gym runs the servers of a NeMo Gym config: it needs --config X.yaml --split NAME');
      const { failures, health } = await runCollect(flags, Object.keys(flags.agentServer));
      assertFailuresWithin([failures], flags.failOnError);
      if (health) assertHealthy([health], maxUnhealthyOf(flags));
    });
}

/**
 * NeMo Gym's end-to-end mode: the config's servers are started (as `gymnast serve --config` does),
 * each dataset of the split is collated with its agent stamped as `agent_ref`, and collected through
 * that agent's `/run` into `<output>/<agent>_<dataset>.jsonl`; the servers stop when it is done.
 */
async function collectSplit(command: Command, split: DatasetSplit): Promise<void> {
  const flags = command.opts<CollectFlags>();
  if (!flags.config) throw new ConfigError('--split needs --config X.yaml: the NeMo Gym config whose datasets and servers to use');
  if (!flags.output) throw new ConfigError('--split needs --output DIR: the folder for one output per dataset');
  if (flags.input !== undefined) throw new ConfigError('--split takes its rows from the datasets in the config: drop --input');
  refuseAgentFlags(command, flags.config);
  // Imported here: reading a config (and its YAML parser) and the servers it starts are only needed by
  // --split, and cost every other collect ~0.1 CPU-s to load.
  const { loadServerConfig } = await import('../servers/config/server-config.js');
  const { collateDataset, splitDatasets } = await import('../servers/config/split-datasets.js');
  const { startConfigRun } = await import('../servers/config/config-run.js');
  const config = loadServerConfig(flags.config);
  const datasets = splitDatasets(config, split).map((dataset) => ({ dataset, name: `${dataset.agent}_${dataset.dataset.name}` }));
  // --resume and --overwrite hold for every dataset's output; each is looked at before the servers
  // start, so a rerun by mistake is refused before any dataset is collected, not after the first ones.
  for (const { name } of datasets) await refuseToErase(collectPaths(join(flags.output, `${name}.jsonl`)), flags);
  const run = await startConfigRun(config, { ...(flags.nemoGym === undefined ? {} : { nemoGym: flags.nemoGym }), onNotice: (message) => process.stderr.write(`[collect] ${message}\n`) });
  const health: HealthSummary[] = [];
  const failures: RunFailures[] = [];
  try {
    const agents = Object.fromEntries(run.servers.filter((server) => server.type === 'responses_api_agents').map((server) => [server.name, server.url]));
    // The config's own agents sample with the policy the run records; only the flags' agent servers bring a model of their own.
    const remoteAgents = Object.keys(flags.agentServer).filter((agent) => !Object.hasOwn(agents, agent));
    for (const { dataset, name } of datasets) {
      const input = join(flags.output, 'preprocessed_datasets', `${name}.jsonl`);
      makeOutputFolder(input);
      if (flags.reuseDataPreparation && existsSync(input)) process.stderr.write(`[collect] ${input} is prepared already: reused (--reuse-data-preparation)\n`);
      else await collateDataset(dataset, input);
      process.stderr.write(`[collect] ${split} dataset ${dataset.dataset.name} of ${dataset.agent} (${dataset.yamlPath})\n`);
      const settings = { ...flags, input, output: join(flags.output, `${name}.jsonl`), agentServer: { ...flags.agentServer, ...agents }, numRepeats: dataset.dataset.num_repeats ?? flags.numRepeats };
      // The agent's own policy and limits sampled its rows: the run records them, and the health check decodes with its tokenizer.
      const collected = await runCollect(settings, remoteAgents, run.episodes.get(dataset.agent));
      failures.push(collected.failures);
      if (collected.health) health.push(collected.health);
    }
  } finally {
    await run.close();
  }
  // As `gymnast health` judges the output folder: every dataset's rollouts together.
  assertFailuresWithin(failures, flags.failOnError);
  assertHealthy(health, maxUnhealthyOf(flags));
}

/**
 * The policy and episode flags, each with the config key that sets it instead (null: none does): with
 * `--split` the config's agents run every row with their own model and settings, so these would be ignored.
 */
const AGENT_SETTINGS: Readonly<Record<string, string | null>> = {
  policy: "use_completions_api (or gymnast_policy) on the agent's model server",
  baseUrl: "base_url on the agent's model server",
  model: "model on the agent's model server",
  tokenizer: "tokenizer on the agent's model server",
  apiKey: "api_key on the agent's model server",
  retryBudget: null,
  maxTurns: 'max_turns on the agent',
  maxSeqLen: 'max_seq_len on the agent',
  maxTokens: 'max_tokens on the agent',
  onMaxTokens: 'on_max_tokens on the agent',
  temperature: 'temperature on the agent',
  seed: 'seed on the agent',
  toolCallParser: 'tool_call_parser on the agent',
};

/** Every policy or episode flag given with `--split`, refused at once, each naming what to set in `config` instead. */
function refuseAgentFlags(command: Command, config: string): void {
  const given = command.options.filter((option) => Object.hasOwn(AGENT_SETTINGS, option.attributeName()) && command.getOptionValueSource(option.attributeName()) === 'cli');
  const problems = given.map((option) => {
    const key = AGENT_SETTINGS[option.attributeName()];
    return `${option.long}: with --split the config's agents run the rows; ${key === null ? `${config} has no key for it: drop it` : `set ${key} in ${config}`}`;
  });
  if (problems.length === 1) throw new ConfigError(problems[0]!);
  if (problems.length > 1) throw new ConfigError([`${problems.length} flags --split cannot take:`, ...problems.map((problem) => `  ${problem}`)].join('\n'));
}

/**
 * One collection, its files written and its summary printed; resolves with how its rollouts ended and
 * its health, for the caller to hold against `--fail-on-error` and `--max-unhealthy` (as `gymnast
 * health` does), once everything is written. `remoteAgents` are the `--agent-server`s whose own model
 * samples their rows. `sampledBy` is the policy and limits of a config's agent server that runs every
 * row, owned by the config run; without it, the flags' policy is created for this collection and
 * closed after it.
 */
async function runCollect(flags: CollectFlags, remoteAgents: readonly string[], sampledBy?: AgentEpisode): Promise<{ failures: RunFailures; health?: HealthSummary }> {
  // The library checks --input; the files only the CLI reads are checked here, before anything starts.
  const read = [{ flag: '--prompt-config', path: flags.promptConfig }, { flag: '--config', path: flags.config }];
  checkReadFilesApart(collectPaths(flags.output), read.filter((file): file is ReadFile => file.path !== undefined));
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
  const { policy, renderer, maxSeqLen, maxTurns, onMaxTokens, sampling, ownsPolicy } = await episodeFor(flags, sampledBy, countRetry).catch(async (error: unknown) => {
    await Promise.all(servers.map((server) => server.close()));
    throw error;
  });
  const remoteDecoder = await remoteTokenizer(flags, remoteAgents, sampledBy ? undefined : renderer.tokenizer).catch(async (error: unknown) => {
    await Promise.all([...(ownsPolicy ? [policy.close()] : []), ...servers.map((server) => server.close())]);
    throw error;
  });
  const { stopAdmitting, abort, dispose } = interruptions();
  const summary = await collect({
    input: flags.input,
    output: flags.output,
    ...(flags.agent ? { agent: flags.agent } : {}),
    numRepeats: flags.numRepeats,
    ...(flags.addSeed ? { addSeed: true } : {}),
    ...(flags.seedField ? { seedField: flags.seedField } : {}),
    ...(flags.keepTaskIndices ? { keepTaskIndices: true } : {}),
    overrides: flags.set,
    ...(flags.promptConfig ? { promptConfig: await loadPromptConfig(flags.promptConfig) } : {}),
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
    onProgress: progressPrinter(() => retries),
    onNotice: (message) => process.stderr.write(`[collect] ${message}\n`),
    agents: new Map(servers.map((server) => [server.name, server])),
    remoteAgents,
    // Its decode check reuses the policy's tokenizer, the one that made the ids: not loaded a second time.
    health: { decoder: renderer.tokenizer, ...(remoteDecoder ? { remoteDecoder } : {}) },
  }).finally(async () => {
    dispose();
    await Promise.all([...(ownsPolicy ? [policy.close()] : []), ...servers.map((server) => server.close())]);
  });
  for (const agent of summary.aggregate) {
    process.stdout.write(`${agent.agent_ref.name}: ${JSON.stringify(agent.key_metrics)}\n`);
  }
  const metrics = summary.rollouts === 0 ? 'no aggregate metrics (no rollout succeeded)' : `metrics in ${summary.paths.aggregate}`;
  process.stdout.write(`${summary.rollouts} rollouts in ${summary.paths.output}, ${summary.failures} failures in ${summary.paths.failures}, ${metrics}\n`);
  process.stdout.write(`${limitsLine(flags.concurrency, { maxTurns, maxSeqLen, onMaxTokens })}\n`);
  // An interrupted run must not look finished to a script that trains on its output next.
  if (stopAdmitting.aborted) throw new AbortedError(`interrupted before every rollout ran: the files hold what finished; the same command with --resume continues`);
  // The run's health in one line, checked in the pass that aggregated it (the verdicts and summary are
  // written beside it), with where it stands against --max-unhealthy. Imported after the run, as are
  // the agents of --resources-server: not paid for before the first request.
  const { health } = summary;
  if (health) {
    const { healthSummaryLine } = await import('../collect/health/health-summary.js');
    const max = maxUnhealthyOf(flags);
    process.stderr.write(`[collect] ${healthSummaryLine(health)}; ${healthGateLine(healthGate([health], max), max)}\n`);
    // Counted by the health pass, which reads every row anyway: no second pass over the output for it.
    if (health.zero_turn_rows > 0) process.stdout.write(`${health.zero_turn_rows} zero-turn rollouts (prompt-too-long: the prompt alone filled --max-seq-len): not scored, nothing to train on\n`);
  }
  const failures = { planned: summary.planned, retryable: summary.retryable, givenUp: summary.givenUp, failuresFile: summary.paths.failures };
  return { failures, ...(health ? { health } : {}) };
}

/**
 * The seed where NeMo Gym's collector put it before PR #1099 is the default, but NeMo Gym's agent
 * servers have refused it there since (422 on every `/run`): said before a run of `--agent-server`s.
 */
function seedFieldNotice(flags: CollectFlags): void {
  if (!flags.addSeed || (flags.seedField ?? 'request') !== 'request' || Object.keys(flags.agentServer).length === 0) return;
  process.stderr.write("[collect] --add-seed puts each seed in responses_create_params.seed, which NeMo Gym's agent servers refuse since PR #1099 (422): --seed-field extra-body puts it in metadata.extra_body, where they take it\n");
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
  return { policy, renderer, maxSeqLen: flags.maxSeqLen ?? maxModelLen, maxTurns: flags.maxTurns, onMaxTokens: flags.onMaxTokens, sampling: runSampling(flags), ownsPolicy: true };
}

function parseSplit(value: string): DatasetSplit {
  if (!(DATASET_TYPES as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected ${DATASET_TYPES.join(', ')}, got "${value}"`);
  return value as DatasetSplit;
}

/**
 * The agents of `--resources-server` and `--gymnasium-server`: gymnast's own loop against NeMo Gym
 * servers, sharing the request deadline, attempts and retry budget flags with the policy. A name given
 * to two kinds of server would leave its rows two ways to run: refused.
 */
async function resourcesAgents(flags: CollectFlags, onRetry: () => void): Promise<(Agent & { close(): Promise<void> })[]> {
  const named: [string, string, ResourcesProtocol][] = [
    ...Object.entries(flags.resourcesServer).map(([name, url]) => [name, url, 'resources'] as [string, string, ResourcesProtocol]),
    ...Object.entries(flags.gymnasiumServer).map(([name, url]) => [name, url, 'gymnasium'] as [string, string, ResourcesProtocol]),
  ];
  const taken = new Set(Object.keys(flags.agentServer));
  for (const [name] of named) {
    if (taken.has(name)) throw new ConfigError(`agent "${name}" is named by more than one of --agent-server, --resources-server and --gymnasium-server`);
    taken.add(name);
  }
  if (named.length === 0) return [];
  const { resourcesAgent } = await import('../collect/resources-agent.js');
  return named.map(([name, url, protocol]) =>
    resourcesAgent({
      name,
      urls: [url],
      protocol,
      onRetry,
      ...(flags.toolCallParser === undefined ? {} : { toolCallParser: flags.toolCallParser }),
      ...(flags.requestTimeout === undefined ? {} : { timeoutMs: flags.requestTimeout * 1000 }),
      ...(flags.requestAttempts === undefined ? {} : { maxAttempts: flags.requestAttempts }),
      ...(flags.retryBudget === undefined ? {} : { retryBudget: { ...defaultRetryBudget, ratio: flags.retryBudget } }),
    }),
  );
}

/**
 * Merges `--config FILE` (YAML or JSON, keys named like the flags: `num-repeats`, `num_repeats` or
 * `numRepeats`) under the flags: a flag given on the command line wins over the file, the file over
 * the defaults. Values from the file go through the same parsers as flags, and every bad key is
 * reported at once, each as `FILE: key: what was expected, got what`.
 */
async function withConfigFile(command: Command): Promise<CollectFlags> {
  const flags = command.opts<CollectFlags>();
  if (!flags.config) return withRequired(flags, undefined);
  const file = flags.config;
  const { readYamlFile } = await import('../collect/read-yaml-file.js');
  const values = await readYamlFile(file, 'config');
  if (typeof values !== 'object' || values === null || Array.isArray(values)) throw new ConfigError(`${file}: expected a mapping of option names to values (e.g. num-repeats: 4), got ${describeValue(values)}`);
  const merged: Record<string, unknown> = { ...flags };
  const problems: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    const name = key.replace(/[-_]([a-z])/g, (_, letter: string) => letter.toUpperCase());
    const option = command.options.find((candidate) => candidate.attributeName() === name);
    if (!option || name === 'config') {
      problems.push(`${key}: unknown option (see gymnast collect --help)`);
      continue;
    }
    if (command.getOptionValueSource(name) === 'cli') continue;
    try {
      merged[name] = configValue(option, value);
    } catch (error) {
      problems.push(`${key}: ${(error as Error).message}`);
    }
  }
  if (problems.length === 1) throw new ConfigError(`${file}: ${problems[0]}`);
  if (problems.length > 1) throw new ConfigError([`${problems.length} problems in ${file}:`, ...problems.map((problem) => `  ${file}: ${problem}`)].join('\n'));
  return withRequired(merged as unknown as CollectFlags, file);
}

/** Input and output are needed whether they come from the command line or the config file, and as paths. */
function withRequired(flags: CollectFlags, config: string | undefined): CollectFlags {
  for (const required of ['input', 'output'] as const) {
    if (flags[required] === undefined) throw new ConfigError(`collect needs --${required}${config === undefined ? '' : ` (on the command line or in ${config})`}`);
    if (flags[required] === '') throw new ConfigError(`--${required}: expected a file path, got ""`);
  }
  return flags;
}

/**
 * The first Ctrl-C stops admitting rollouts and lets those in flight finish; the second aborts them
 * (they are recorded as `aborted` failures). Either way the files resume cleanly with --resume.
 */
function interruptions(): { stopAdmitting: AbortSignal; abort: AbortSignal; dispose: () => void } {
  const admitting = new AbortController();
  const running = new AbortController();
  const onSignal = () => {
    if (!admitting.signal.aborted) {
      admitting.abort(new Error('interrupted'));
      process.stderr.write('[collect] stopping: finishing the rollouts in flight (Ctrl-C again aborts them); --resume continues later\n');
    } else {
      running.abort(new Error('interrupted twice'));
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stopAdmitting: admitting.signal,
    abort: running.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * Progress on stderr: on a terminal one live line (bar, done/total, rollouts/min, ETA, mean reward,
 * failures, prompts too long) redrawn at most 10 times a second; otherwise a plain line every 10% and at the end.
 */
function progressPrinter(retries: () => number, stream: NodeJS.WriteStream = process.stderr): (progress: CollectProgress) => void {
  const started = Date.now();
  let first: number | undefined;
  let lastDecile = -1;
  let lastDraw = 0;
  return (progress) => {
    first ??= progress.done - 1;
    const finished = progress.done === progress.total;
    const elapsedMinutes = Math.max((Date.now() - started) / 60_000, 1e-9);
    const rate = (progress.done - first) / elapsedMinutes;
    const scored = progress.done - progress.failures - progress.promptTooLong;
    const meanReward = scored === 0 ? 'n/a' : (progress.rewardSum / scored).toFixed(3);
    const eta = rate > 0 ? formatDuration(((progress.total - progress.done) / rate) * 60) : '?';
    // Named only when there are some: a prompt too long for --max-seq-len is neither scored nor failed.
    const tooLong = progress.promptTooLong > 0 ? `, ${progress.promptTooLong} prompt too long` : '';
    const status = `${progress.done}/${progress.total} rollouts, ${rate.toFixed(0)}/min, ETA ${eta}, mean reward ${meanReward}, ${progress.failures} failures${tooLong}, ${retries()} retries`;
    if (stream.isTTY) {
      if (!finished && Date.now() - lastDraw < 100) return;
      lastDraw = Date.now();
      const width = 24;
      const filled = Math.round((width * progress.done) / progress.total);
      stream.write(`\r\x1b[2K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${status}${finished ? '\n' : ''}`);
      return;
    }
    const decile = Math.floor((10 * progress.done) / progress.total);
    if (decile === lastDecile && !finished) return;
    lastDecile = decile;
    stream.write(`[collect] ${status}\n`);
  };
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}
