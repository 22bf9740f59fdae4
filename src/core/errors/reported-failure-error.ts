import { EnvironmentError } from './environment-error.js';

/**
 * An environment answered that it could not score the episode (a NeMo Gym verifier whose judge failed,
 * `_ng_failure_class: "judge_failed"`): a failure, never a reward. What it reported with the failure is
 * kept on the failure record (`env_fields`), so the sidecar row says what NeMo Gym's would.
 */
export class ReportedFailureError extends EnvironmentError {
  readonly fields: Readonly<Record<string, unknown>>;

  constructor(environment: string, message: string, fields: Readonly<Record<string, unknown>>) {
    super(environment, message);
    this.fields = fields;
  }

  /** The fields an environment reported with its failure; none for any other error. */
  static fieldsOf(error: unknown): Readonly<Record<string, unknown>> {
    if (!(error instanceof EnvironmentError) || !('fields' in error)) return {};
    const { fields } = error;
    return typeof fields === 'object' && fields !== null ? (fields as Record<string, unknown>) : {};
  }
}
