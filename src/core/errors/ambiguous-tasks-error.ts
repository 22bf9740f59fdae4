import { GymnastError } from './gymnast-error.js';

/**
 * Stored rows whose tasks cannot be told: without NeMo Gym's `_ng_*` indices, neither the
 * materialized inputs nor the prompts say which rows are repeats of one task. `where` names the
 * row (file:line) at which it became clear; the message says which other row, and why.
 */
export class AmbiguousTasksError extends GymnastError {
  readonly kind = 'ambiguous-tasks';
  readonly where: string;

  constructor(where: string, message: string) {
    super(`${where}: ${message}`);
    this.where = where;
  }
}
