export { GymnastError } from './errors/gymnast-error.js';
export { ConfigError } from './errors/config-error.js';
export { PolicyError } from './errors/policy-error.js';
export { EnvironmentError } from './errors/environment-error.js';
export { ReportedFailureError } from './errors/reported-failure-error.js';
export { ConfigFileError } from './errors/config-file-error.js';
export { ServerStartError } from './errors/server-start-error.js';
export { RewardComponentsError } from './errors/reward-components-error.js';
export { TokenAlignmentError } from './errors/token-alignment-error.js';
export { TemplateError } from './errors/template-error.js';
export { AbortedError } from './errors/aborted-error.js';
export { LimitExceededError } from './errors/limit-exceeded-error.js';
export { HttpCallError } from './errors/http-call-error.js';
export { isRetryable } from './errors/is-retryable.js';
export { TransportError } from './errors/transport-error.js';
export { RequestTimeoutError } from './errors/request-timeout-error.js';
export { ServerError } from './errors/server-error.js';
export { ContextLengthError } from './errors/context-length-error.js';
export { SamplerReplyError } from './errors/sampler-reply-error.js';
export { SamplerProcessError } from './errors/sampler-process-error.js';
export { OutputExistsError } from './errors/output-exists-error.js';
export { OutputPathError } from './errors/output-path-error.js';
export { RunLockedError } from './errors/run-locked-error.js';
export { ListenError } from './errors/listen-error.js';
export { WriteFailedError } from './errors/write-failed-error.js';
export { UnsafeFileError } from './errors/unsafe-file-error.js';
export { hasKind, policyErrorKinds, httpCallErrorKinds, environmentErrorKinds, type ErrorKind, type ErrorKinds } from './errors/has-kind.js';
export { ToolCall } from './tool-call.js';
export { ChatTool } from './chat-tool.js';
export { Message, Role } from './message.js';
export { FinishReason } from './finish-reason.js';
export { Termination, TerminationKind, successfulTerminations, type SuccessfulTermination } from './termination.js';
export { runSampling, SamplingOverrides, SamplingParams, samplingDefaults, type SamplingParamsInput } from './sampling-params.js';
export { Usage } from './usage.js';
export { PolicyResult, type PolicyResultInput } from './policy-result.js';
export { StepResult, type StepResultInput } from './step-result.js';
export { RecordedError, recordError, isDeterministicFailure } from './recorded-error.js';
export { TurnRecord } from './turn-record.js';
export { EpisodeTask, type EpisodeTaskInput } from './episode-task.js';
export {
  ROLLOUT_SCHEMA_VERSION,
  RolloutRecord,
  FailureRecord,
  EpisodeRecord,
  flatTokenIds,
} from './rollout-record.js';
export { FailureClass, toFailureClass } from './failure-class.js';
export { AgentRef } from './agent-ref.js';
export { ROW_SCHEMA_VERSION, ResultRow, FailureRow, MaterializedRow, RolloutKeys, RowKeys, RowResponse, ResponseUsage } from './result-row.js';
export { readRow, readFullRow, readRowKeys, readMaterializedRow, ResultRowHead, FailureRowHead, type ReadRow, type ReadFullRow } from './row-reader.js';
export { compactRowTokens, restoreRowTokens, type CompactMessage } from './compact-row-tokens.js';
export { InvalidRowError } from './errors/invalid-row-error.js';
export { AmbiguousTasksError } from './errors/ambiguous-tasks-error.js';
