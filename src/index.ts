/// <reference types="node" preserve="true" />
// Kept in dist/index.d.ts (preserve): gymnast's types name Node's (Readable, Buffer, http.Server), and
// TypeScript 6 and later load no @types package a tsconfig does not list in "types". With it, a
// consumer's bare tsconfig compiles; @types/node is a dependency ("*", as DefinitelyTyped's packages
// declare it: the consumer's own copy serves, never a second one) so that it is there to load.
/**
 * gymnast's public API. Names are listed one by one: anything not here is internal and may change.
 * Test doubles live in `gymnast/testing`.
 */
export {
  GymnastError,
  ConfigError,
  PolicyError,
  EnvironmentError,
  RewardComponentsError,
  TokenAlignmentError,
  AbortedError,
  LimitExceededError,
  ReportedFailureError,
  ConfigFileError,
  ServerStartError,
  OutputExistsError,
  OutputPathError,
  RunLockedError,
  WriteFailedError,
  hasKind,
  type ErrorKind,
  ToolCall,
  Message,
  Role,
  FinishReason,
  Termination,
  TerminationKind,
  SamplingParams,
  samplingDefaults,
  type SamplingParamsInput,
  Usage,
  PolicyResult,
  type PolicyResultInput,
  StepResult,
  type StepResultInput,
  RecordedError,
  TurnRecord,
  EpisodeTask,
  type EpisodeTaskInput,
  ROLLOUT_SCHEMA_VERSION,
  RolloutRecord,
  FailureRecord,
  FailureClass,
  toFailureClass,
  EpisodeRecord,
  flatTokenIds,
  AgentRef,
  ROW_SCHEMA_VERSION,
  ResultRow,
  FailureRow,
  MaterializedRow,
  RolloutKeys,
  readRow,
  readFullRow,
  readRowKeys,
  readMaterializedRow,
  type ReadRow,
  type ReadFullRow,
  InvalidRowError,
  AmbiguousTasksError,
} from './core/index.js';
export {
  CharTokenizer,
  PlainChatTemplate,
  TemplateRenderer,
  TokenLedger,
  HfTokenizer,
  loadHfTokenizer,
  JinjaChatTemplate,
  responsesInputToMessages,
  messagesToResponsesItems,
  responsesToolsToChatTools,
  chatToolsToResponsesTools,
  type Tokenizer,
  type ChatTemplate,
  type ConversationRenderer,
  type DriftMode,
  type TokenDrift,
} from './tokens/index.js';
export {
  createPolicy,
  parsePolicySpec,
  PolicySpec,
  RequestSettings,
  policyKinds,
  type PolicyKind,
  type CreatePolicyOptions,
  type CreatedPolicy,
  RemotePolicy,
  Router,
  routingPolicies,
  type Routing,
  JsonClient,
  EmbeddedPolicy,
  vllmCompletionsBackend,
  chatCompletionsBackend,
  sglangGenerateBackend,
  openAiBackend,
  type Policy,
  type PolicyRequest,
  type StreamedToken,
  type StreamingPolicy,
  type BackendRecipe,
  replyList,
  type ReplyList,
  type SampledReply,
  type RemotePolicyOptions,
  type RouterEvent,
  type ServedModel,
} from './policy/index.js';
export {
  createBatchedEnvironment,
  mathEnvironment,
  slidingPuzzleEnvironment,
  calculatorEnvironment,
  arithmeticEnvironment,
  arithmeticPrompt,
  generateArithmeticTasks,
  smallProductTasks,
  type SmallProductSplit,
  codeEnvironment,
  codeAgentEnvironment,
  extractCode,
  type CodeEnvironmentOptions,
  type CodeFields,
  type UnitTestVerdict,
  builtinEnvironments,
  findEnvironment,
  type Environment,
  type EnvironmentTurn,
  type ObservationTokens,
  type ResetResult,
  nemoGymResourcesEnvironment,
  nemoGymGymnasiumEnvironment,
  NemoGymServer,
  responseOutput,
  responseObject,
  hermesToolCallParser,
  toolCallParsers,
  findToolCallParser,
  type ToolCallParser,
  type NemoGymResourcesOptions,
  type ResourcesEpisode,
  type GymnasiumServerEpisode,
} from './environments/index.js';
export {
  runEpisode,
  runGroups,
  runJobs,
  ConcurrencyLimit,
  Schedule,
  defaultSchedule,
  type JobControl,
  type SchedulerOptions,
  type EpisodeGroup,
  type EpisodeOptions,
  type MaxTokensPolicy,
  type RunGroupsOptions,
  type EngineEvent,
  type EngineObserver,
  type EpisodeKey,
} from './engine/index.js';
export {
  AggregateAccumulator,
  rolloutMetrics,
  passMajorityMetrics,
  unbiasedPassAtK,
  type AggregateOptions,
  type AgentAggregate,
  type AgentMetrics,
  type AgentSummary,
  type AnswerKey,
  type GroupLevelMetrics,
  type PerSampleAggregate,
  type RolloutInfo,
  type ScoredRollout,
} from './metrics/index.js';
export { collect, type CollectOptions, type CollectSummary, type CollectProgress } from './collect/collect-run.js';
export { CollectSettings, collectDefaults } from './collect/collect-settings.js';
export { ConcurrencyController, type ConcurrencyControllerOptions, type ReplicaReading } from './collect/concurrency-controller.js';
export { adjustConcurrency, readReplicas, type AutoConcurrencyOptions, type AutoConcurrencySummary } from './collect/auto-concurrency.js';
export { readVllmLoad, VLLM_LOAD_METRICS, type VllmLoad } from './http-client/vllm-load.js';
export { JsonlRolloutSink } from './collect/jsonl-rollout-sink.js';
export { aggregateFiles, type AggregateSources } from './collect/aggregate-files.js';
export { writeAggregateFile } from './collect/write-aggregate-file.js';
export { profileFiles, type ProfileSources } from './collect/profile-files.js';
export type { Sink, SinkRun, RolloutOutcome } from './collect/sink.js';
export { nemoGymAgent } from './collect/nemo-gym-agent.js';
export { resourcesAgent, type ResourcesAgentOptions } from './collect/resources-agent.js';
export { withServerAggregates, type CollectedAggregate } from './collect/server-aggregate.js';
export { GrpoTrainer, GrpoSettings, type GrpoSettingsInput, type GrpoStepMetrics, type RolloutGroup } from './train/grpo-trainer.js';
export { runGrpo, GrpoRunSettings, type GrpoRunSettingsInput, type GrpoRunOptions, type GrpoRunStep, type GrpoRunSummary } from './train/grpo-run.js';
export { rolloutSequence, type RolloutSequence } from './train/rollout-sequence.js';
export { recomputeLogprobs, type RecomputedLogprobs } from './train/recompute-logprobs.js';
export { groupAdvantages } from './train/group-advantages.js';
export { clippedToken, type ClippedToken } from './train/ppo-clip.js';
export { rewardPlotSvg, type RewardPoint } from './train/reward-plot.js';
export { writeCheckpoint } from './train/write-checkpoint.js';
export { AsyncTraining, type AsyncTrainingInput } from './train/async-training.js';
export { RolloutSampler, InFlight, type SampledBatch } from './train/rollout-sampler.js';
export { keepFresh, mayStartCollecting, oldestAllowedVersion, type FreshGroups } from './train/staleness.js';
export { OpenAiCompatibleServer, type OpenAiCompatibleServerOptions } from './servers/openai-compatible/openai-compatible-server.js';
export { policyGenerator } from './servers/openai-compatible/generator.js';
export { JsonServer, type JsonServerOptions, type JsonRequest, type JsonReply, type JsonRoute } from './servers/http-server/json-server.js';
export { defineResourcesServer, RunRequest, VerifyRequest, VerifyResult, type ResourcesServerSpec } from './servers/resources/define-resources-server.js';
export { defineGymnasiumServer, GymnasiumResetResult, GymnasiumStepResult, type GymnasiumServerSpec } from './servers/resources/define-gymnasium-server.js';
export { defineTool, type ToolDefinition, type ResourcesTool } from './servers/resources/resources-tool.js';
export { ReverifyMode, type ResourcesServerDefinition, type ResourcesServeOptions } from './servers/resources/resources-server-definition.js';
export { JudgeError, isJudgeError } from './servers/resources/judge-error.js';
export { assistantText, actionText } from './servers/resources/response-text.js';
export { aggregateVerifyResponses, type AggregateMetrics } from './servers/resources/aggregate-verify-responses.js';
export { environmentResourcesServer } from './servers/resources/environment-resources-server.js';
export { SessionStore, DEFAULT_MAX_SESSIONS, type ResourcesSession } from './servers/resources/session-store.js';
export { AgentServer, AgentServerSettings, type AgentServerOptions } from './servers/agent/agent-server.js';
export { aggregateRows, type AggregateRowsOptions } from './collect/aggregate-rows.js';
export { loadServerConfig, parseServerConfig, SERVER_TYPES, DATASET_TYPES, type GymConfig, type ServerInstance } from './servers/config/server-config.js';
export { startConfigRun, type AgentEpisode, type ConfigRun, type ConfigRunOptions } from './servers/config/config-run.js';
export { splitDatasets, collatedRows, collateDataset, type SplitDataset } from './servers/config/split-datasets.js';
export type { DatasetSplit } from './servers/config/dataset-types.js';
export { ViewerServer, viewerAssetsDirectory, type ViewerServerOptions } from './servers/viewer/viewer-server.js';
export { findRuns, type ViewedRun } from './servers/viewer/run-files.js';
export { RunIndex, type RunFiles } from './viewer/run-index.js';
export { RolloutLister, rolloutDetail, taskGroup, type RolloutSummary, type RolloutPage, type RolloutDetail, type TokenView } from './viewer/rollout-views.js';
export { runOverview, runSummary, type RunOverview, type RunSummary } from './viewer/run-overview.js';
export type { TokenDecoder } from './core/token-decoder.js';
export { HEALTH_CHECKS, type HealthCheckId, type HealthFinding, type HealthVerdict } from './metrics/health/health-check.js';
export { rolloutFindings } from './metrics/health/rollout-findings.js';
export { runHealth } from './collect/health/run-health.js';
export { checkRunHealth, type RunHealthOptions } from './collect/health/check-run-health.js';
export { healthPaths } from './metrics/health/health-paths.js';
export { healthSummaryLine, type HealthSummary, type HealthVerdictLine } from './collect/health/health-summary.js';
export { EventFileWriter, type EventFileWriterOptions } from './tensorboard/event-file-writer.js';
export { parseMaxUnhealthy, assertHealthy, DEFAULT_MAX_UNHEALTHY, type MaxUnhealthy } from './collect/health/health-gate.js';
export { UnhealthyRunError } from './core/errors/unhealthy-run-error.js';
export { RetryableFailuresError } from './core/errors/retryable-failures-error.js';
export { FailedRolloutsError } from './core/errors/failed-rollouts-error.js';
export { SandboxUnavailableError } from './core/errors/sandbox-unavailable-error.js';
export {
  runSandboxed,
  SandboxPool,
  SandboxLimits,
  SandboxStatus,
  SandboxVerdict,
  SANDBOX_LANGUAGES,
  INSTALL_BUBBLEWRAP,
  UNSANDBOXED_WARNING,
  type SandboxLanguage,
  type SandboxLimitsInput,
  type SandboxOptions,
  type SandboxRequest,
} from './sandbox/index.js';
export { assertFailuresWithin, DEFAULT_FAIL_ON_ERROR, type RunFailures } from './collect/failure-gate.js';
export {
  exportNemoRl,
  nemoRlRecord,
  DRIFT_POLICIES,
  type DriftPolicy,
  type NemoRlRecord,
  type NemoRlMessage,
  type ExportCounts,
} from './collect/export-nemo-rl.js';
export { countZeroTurnRows } from './collect/zero-turn-rows.js';
export { isZeroTurnRow } from './core/zero-turn-row.js';
