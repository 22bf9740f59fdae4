export { GymnastError } from './errors/gymnast-error.js';
export { ConfigError } from './errors/config-error.js';
export { PolicyError } from './errors/policy-error.js';
export { EnvironmentError } from './errors/environment-error.js';
export { RewardComponentsError } from './errors/reward-components-error.js';
export { TokenAlignmentError } from './errors/token-alignment-error.js';
export { TemplateError } from './errors/template-error.js';
export { AbortedError } from './errors/aborted-error.js';
export { LimitExceededError } from './errors/limit-exceeded-error.js';
export { TransportError } from './errors/transport-error.js';
export { RequestTimeoutError } from './errors/request-timeout-error.js';
export { ServerError } from './errors/server-error.js';
export { ContextLengthError } from './errors/context-length-error.js';
export { ToolCall } from './tool-call.js';
export { ChatTool } from './chat-tool.js';
export { Message, Role } from './message.js';
export { FinishReason } from './finish-reason.js';
export { Termination, TerminationKind, successfulTerminations } from './termination.js';
export { SamplingParams, type SamplingParamsInput } from './sampling-params.js';
export { Usage } from './usage.js';
export { RecordedError, recordError, isDeterministicFailure } from './recorded-error.js';
export { TurnRecord } from './turn-record.js';
export { EpisodeTask, type EpisodeTaskInput } from './episode-task.js';
export {
  ROLLOUT_SCHEMA_VERSION,
  RolloutRecord,
  FailureRecord,
  FailureClass,
  EpisodeRecord,
  flatTokenIds,
} from './rollout-record.js';
