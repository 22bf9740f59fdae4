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
  ToolCall,
  Message,
  Role,
  FinishReason,
  Termination,
  TerminationKind,
  SamplingParams,
  type SamplingParamsInput,
  Usage,
  RecordedError,
  TurnRecord,
  EpisodeTask,
  type EpisodeTaskInput,
  ROLLOUT_SCHEMA_VERSION,
  RolloutRecord,
  FailureRecord,
  FailureClass,
  EpisodeRecord,
  flatTokenIds,
} from './core/index.js';
export { CharTokenizer, PlainChatTemplate, TemplateRenderer, type Tokenizer, type ChatTemplate, type ConversationRenderer } from './tokens/index.js';
export { PolicyResult, type Policy, type PolicyRequest } from './policy/index.js';
export {
  StepResult,
  createBatchedEnvironment,
  mathEnvironment,
  slidingPuzzleEnvironment,
  calculatorEnvironment,
  arithmeticEnvironment,
  arithmeticPrompt,
  generateArithmeticTasks,
  builtinEnvironments,
  findEnvironment,
  type Environment,
  type EnvironmentTurn,
  type ResetResult,
  type StepResultInput,
} from './environments/index.js';
export {
  runEpisode,
  runGroups,
  defaultSchedule,
  type EpisodeGroup,
  type EpisodeOptions,
  type MaxTokensPolicy,
  type RunGroupsOptions,
  type Schedule,
  type EngineEvent,
  type EngineObserver,
  type EpisodeKey,
} from './engine/index.js';
export { rolloutMetrics } from './metrics/index.js';
