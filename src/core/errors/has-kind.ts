import type { AbortedError } from './aborted-error.js';
import type { AmbiguousTasksError } from './ambiguous-tasks-error.js';
import type { ConfigError } from './config-error.js';
import type { ContextLengthError } from './context-length-error.js';
import type { EnvironmentError } from './environment-error.js';
import type { FailedRolloutsError } from './failed-rollouts-error.js';
import { GymnastError } from './gymnast-error.js';
import type { InvalidRowError } from './invalid-row-error.js';
import type { LimitExceededError } from './limit-exceeded-error.js';
import type { ListenError } from './listen-error.js';
import type { OutputExistsError } from './output-exists-error.js';
import type { OutputPathError } from './output-path-error.js';
import type { PolicyError } from './policy-error.js';
import type { RequestTimeoutError } from './request-timeout-error.js';
import type { RetryableFailuresError } from './retryable-failures-error.js';
import type { RewardComponentsError } from './reward-components-error.js';
import type { RunLockedError } from './run-locked-error.js';
import type { SamplerProcessError } from './sampler-process-error.js';
import type { SamplerReplyError } from './sampler-reply-error.js';
import type { SandboxUnavailableError } from './sandbox-unavailable-error.js';
import type { ServerError } from './server-error.js';
import type { ServerStartError } from './server-start-error.js';
import type { TemplateError } from './template-error.js';
import type { TokenAlignmentError } from './token-alignment-error.js';
import type { TransportError } from './transport-error.js';
import type { UnhealthyRunError } from './unhealthy-run-error.js';
import type { UnsafeFileError } from './unsafe-file-error.js';
import type { WriteFailedError } from './write-failed-error.js';

/** Every stable `kind` gymnast throws, with the class that carries it. */
export interface ErrorKinds {
  aborted: AbortedError;
  'ambiguous-tasks': AmbiguousTasksError;
  config: ConfigError;
  'context-length': ContextLengthError;
  environment: EnvironmentError;
  'failed-rollouts': FailedRolloutsError;
  'invalid-row': InvalidRowError;
  'limit-exceeded': LimitExceededError;
  listen: ListenError;
  'output-exists': OutputExistsError;
  'output-path': OutputPathError;
  policy: PolicyError;
  'retryable-failures': RetryableFailuresError;
  'reward-components': RewardComponentsError;
  'run-locked': RunLockedError;
  'sampler-process': SamplerProcessError;
  'sampler-reply': SamplerReplyError;
  'sandbox-unavailable': SandboxUnavailableError;
  server: ServerError;
  'server-start': ServerStartError;
  template: TemplateError;
  timeout: RequestTimeoutError;
  'token-alignment': TokenAlignmentError;
  transport: TransportError;
  unhealthy: UnhealthyRunError;
  'unsafe-file': UnsafeFileError;
  'write-failed': WriteFailedError;
}
export type ErrorKind = keyof ErrorKinds;

/** A policy's failures (`PolicyError` and the errors built on it): they say whether a retry may help. */
export const policyErrorKinds = ['policy', 'context-length', 'sampler-reply'] as const satisfies readonly ErrorKind[];

/** An HTTP call's failures (`HttpCallError`'s kinds), whoever made the call: they say whether a retry may help. */
export const httpCallErrorKinds = ['transport', 'timeout', 'server'] as const satisfies readonly ErrorKind[];

/** An environment's failures (`EnvironmentError` and the errors built on it). */
export const environmentErrorKinds = ['environment', 'reward-components'] as const satisfies readonly ErrorKind[];

/**
 * Whether `error` is a gymnast error of one of `kinds`, narrowed to its class. Unlike `instanceof`,
 * this holds across two copies of the package in one process, which agree on kinds but not on classes.
 */
export function hasKind<K extends ErrorKind>(error: unknown, ...kinds: readonly K[]): error is ErrorKinds[K] {
  return GymnastError.isInstance(error) && kinds.some((kind) => kind === error.kind);
}
