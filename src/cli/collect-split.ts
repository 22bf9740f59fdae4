import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { collectPaths } from '../collect/collect-paths.js';
import { assertFailuresWithin, type RunFailures } from '../collect/failure-gate.js';
import { assertHealthy } from '../collect/health/health-gate.js';
import type { HealthSummary } from '../collect/health/health-summary.js';
import { makeOutputFolder } from '../collect/output-paths.js';
import { refuseToErase } from '../collect/refuse-to-erase.js';
import { ConfigError } from '../core/errors/config-error.js';
import type { DatasetSplit } from '../servers/config/dataset-types.js';
import type { CollectFlags } from './collect-flags.js';
import { maxUnhealthyOf } from './max-unhealthy-option.js';
import { runCollect } from './run-collect.js';

/**
 * NeMo Gym's end-to-end mode: the config's servers are started (as `gymnast serve --config` does),
 * each dataset of the split is collated with its agent stamped as `agent_ref`, and collected through
 * that agent's `/run` into `<output>/<agent>_<dataset>.jsonl`; the servers stop when it is done.
 */
export async function collectSplit(command: Command, split: DatasetSplit): Promise<void> {
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
  const run = await startConfigRun(config, {
    ...(flags.nemoGym === undefined ? {} : { nemoGym: flags.nemoGym }),
    onNotice: (message) => process.stderr.write(`[collect] ${message}\n`),
  });
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
      const settings = {
        ...flags,
        input,
        output: join(flags.output, `${name}.jsonl`),
        agentServer: { ...flags.agentServer, ...agents },
        numRepeats: dataset.dataset.num_repeats ?? flags.numRepeats,
        // One TensorBoard run per dataset: their steps would overlap in one.
        ...(flags.tensorboard === undefined ? {} : { tensorboard: join(flags.tensorboard, name) }),
      };
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
  const given = command.options.filter(
    (option) => Object.hasOwn(AGENT_SETTINGS, option.attributeName()) && command.getOptionValueSource(option.attributeName()) === 'cli',
  );
  const problems = given.map((option) => {
    const key = AGENT_SETTINGS[option.attributeName()];
    return `${option.long}: with --split the config's agents run the rows; ${key === null ? `${config} has no key for it: drop it` : `set ${key} in ${config}`}`;
  });
  if (problems.length === 1) throw new ConfigError(problems[0]!);
  if (problems.length > 1) throw new ConfigError([`${problems.length} flags --split cannot take:`, ...problems.map((problem) => `  ${problem}`)].join('\n'));
}
