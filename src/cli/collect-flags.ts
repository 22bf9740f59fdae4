import { type Command, InvalidArgumentError } from 'commander';
import type { NumRepeats } from '../collect/row-planner.js';
import type { Routing } from '../http-client/router/routing.js';
import type { MaxUnhealthy } from '../collect/health/health-gate.js';
import type { SeedField } from '../collect/row-planner.js';
import { collectDefaults, MAX_CONCURRENCY, MEGABYTE } from '../collect/collect-settings.js';
import { toolCallParsers } from '../environments/tool-call-parser.js';
import { DATASET_TYPES, type DatasetSplit } from '../servers/config/dataset-types.js';
import { withEpisodeOptions } from './episode-options.js';
import { maxUnhealthyOption } from './max-unhealthy-option.js';
import { nemoGymOption } from './nemo-gym-option.js';
import { withPolicyOptions } from './policy-flags.js';
import { parseTensorBoardFolder, tensorBoardHelp } from './tensorboard-flag.js';
import {
  parseAgentServer,
  parseCollectConcurrency,
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

/** `gymnast collect`'s options as commander hands them over (a config file's values merged in: see `mergeConfigFile`). */
export interface CollectFlags {
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
  concurrency: number | 'auto';
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
  routing?: Routing;
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
  split?: DatasetSplit;
  nemoGym?: string;
  queue?: string;
  redisTimeout?: number;
  tensorboard?: string;
}

/** Every option of `gymnast collect`, with its parser and default (the library's: `collectDefaults`), added to `command`. */
export function withCollectOptions(command: Command): Command {
  command
    .option('-i, --input <file>', 'JSONL rows: responses_create_params (+ agent_ref, task fields)')
    .option('-o, --output <file>', 'rollouts JSONL; <stem>_materialized_inputs.jsonl, _failures.jsonl, _aggregate_metrics.json go beside it')
    .option('-a, --agent <name>', 'agent for rows without agent_ref (built-in: see gymnast environments)');
  const withPolicy = withPolicyOptions(command)
    .option('--api-key <key>', 'sent as Authorization: Bearer (default: $GYMNAST_API_KEY or $OPENAI_API_KEY)')
    .option('--limit <n>', 'only the first N lines of the input', parseLimit)
    .option('--max-line-mb <n>', `refuse input lines longer than this many MB (MiB; default ${collectDefaults.maxLineBytes / MEGABYTE})`, parseMaxLineMb)
    .option('--num-repeats <n|json>', 'rollouts per row: a number, or {"agent": k, "_default": k}', parseNumRepeats, collectDefaults.numRepeats)
    .option('--add-seed', 'seed each rollout with its index, in the request field --seed-field names')
    .option(
      '--seed-field <where>',
      "where --add-seed puts the seed: request (responses_create_params.seed, as NeMo Gym's collector did before PR #1099; the default) or extra-body (metadata.extra_body, as it does since: its agent servers refuse a top-level seed, vLLM reads extra_body)",
      parseSeedField,
    )
    .option(
      '--keep-task-indices',
      "keep the _ng_task_index a row already has (NeMo Gym since PR #1314: shards of one dataset numbered apart); by default every row's task is its raw line, as NeMo Gym's collector numbers it",
    )
    .option(
      '-c, --concurrency <n|auto>',
      `rollouts in flight (the batch size with --schedule lockstep; NeMo Gym: unbounded; at most ${MAX_CONCURRENCY}); auto: as many as the --base-url vLLM servers take without preempting, read from their /metrics as the run goes`,
      parseCollectConcurrency,
      collectDefaults.concurrency,
    )
    .option(
      '--schedule <kind>',
      'async (each rollout at its own pace) or lockstep (each turn waits for the batch, as NeMo RL)',
      parseSchedule,
      collectDefaults.schedule,
    )
    .option('--set <key=value>', 'override responses_create_params (dotted keys nest; JSON values), repeatable', parseKeyValue, {})
    .option('--prompt-config <file>', "NeMo Gym prompt YAML (system/user templates over the row's fields)");
  return withEpisodeOptions(withPolicy)
    .option('--rollout-timeout <seconds>', 'deadline per rollout, at most a day (default: none; each request still has its own)', parseSeconds)
    .option('--request-timeout <seconds>', 'deadline per HTTP request to a server, each retry its own, at most a day (default: 300)', parseSeconds)
    .option(
      '--request-attempts <n>',
      'attempts per HTTP request on connection errors, timeouts, 429, 5xx and replies the sampler could not have produced (default: 4; agent servers: 3)',
      parseRequestAttempts,
    )
    .option('--retry-budget <fraction>', 'retries allowed per request sent, shared by all requests, plus 10 (default: 0.2)', parseRetryBudget)
    .option('--resume', 'continue this output in place: done rollouts are kept, failed ones retried; refuses if the plan or config changed')
    .option('--overwrite', 'start afresh over an output that already holds rows, erasing them and their failures (without it, or --resume, collect refuses)')
    .option('--max-attempts <n>', 'attempts per rollout before its failure is final (with --resume)', parseMaxAttempts, collectDefaults.maxAttempts)
    .option(
      '--agent-server <name=url>',
      'a NeMo Gym agent server (POST /run) to run rows of agent <name> with its own model, repeatable; their tokens are decode-checked with --tokenizer DIR, else not',
      parseAgentServer,
      {},
    )
    .option(
      '--resources-server <name=url>',
      "a NeMo Gym resources server (/seed_session, /<tool>, /verify): rows of agent <name> run gymnast's loop against it, repeatable",
      parseAgentServer,
      {},
    )
    .option(
      '--gymnasium-server <name=url>',
      "a NeMo Gym gymnasium-style server (/reset, /step, /close): rows of agent <name> run gymnast's loop against it, repeatable",
      parseAgentServer,
      {},
    )
    .option(
      '--tool-call-parser <name>',
      `how the model writes tool calls, for --resources-server and --gymnasium-server: ${toolCallParsers.map((parser) => parser.name).join(', ')} (default hermes)`,
    )
    .option(
      '--tensorboard <dir>',
      tensorBoardHelp('the progress (rollouts done, completion rate, mean reward, failures, tokens/s; every 1% of the run) and the final aggregate metrics'),
      parseTensorBoardFolder,
    )
    .option('--rollout-infos', "list every rollout in its task's group in the aggregate file (NeMo Gym's rollout_infos: 14 lines per rollout)")
    .option(
      '--fail-on-error <count|fraction>',
      'how many rollouts may end without a success (e.g. 10, or 0.05 of them; default 0) before collect exits non-zero: 75 while --resume would retry some of them, else 1',
      parseFailureLimit,
    )
    .addOption(maxUnhealthyOption())
    .option(
      '--config <file>',
      'YAML or JSON with any of these options by name (e.g. num-repeats: 4); flags given on the command line win. With --split: a NeMo Gym config (servers and datasets)',
    )
    .option(
      '--reuse-data-preparation',
      "with --split: take a dataset already prepared in the --output folder's preprocessed_datasets as it is, not collated again (NeMo Gym's reuse_existing_data_preparation)",
    )
    .option(
      '--split <name>',
      `with --config X.yaml in NeMo Gym's shape: start its servers and collect every dataset of this split (${DATASET_TYPES.join(', ')}) through its agents, one output per dataset in the --output folder`,
      parseSplit,
    )
    .addOption(nemoGymOption())
    .option(
      '--queue <redis-url>',
      'coordinate: plan and write here, run the rollouts on `gymnast worker`s through this Redis (redis://[user:password@]HOST:PORT/DB); -c is then how many rollouts the queue holds at once',
    )
    .option(
      '--redis-timeout <seconds>',
      'with --queue: how long a lost connection to Redis is retried (a restart) before the run stops (default 30)',
      parseSeconds,
    );
}

function parseSplit(value: string): DatasetSplit {
  if (!(DATASET_TYPES as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected ${DATASET_TYPES.join(', ')}, got "${value}"`);
  return value as DatasetSplit;
}
