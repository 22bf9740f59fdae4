import { GymnastError } from '../core/errors/gymnast-error.js';

/** One bad input line: file, line and field, so the user can fix it without guessing. */
export interface RowIssue {
  file: string;
  line: number;
  field: string;
  message: string;
}

/** Every bad line of an input file, reported together before any work is done. */
export class InvalidInputError extends GymnastError {
  readonly kind = 'invalid-input';
  readonly issues: readonly RowIssue[];

  constructor(issues: readonly RowIssue[], shown = 20) {
    const lines = issues.slice(0, shown).map((issue) => `  ${issue.file}:${issue.line}: ${issue.field ? `${issue.field}: ` : ''}${issue.message}`);
    const more = issues.length > shown ? [`  … and ${issues.length - shown} more`] : [];
    super([`${issues.length} invalid input ${issues.length === 1 ? 'row' : 'rows'}:`, ...lines, ...more].join('\n'));
    this.issues = issues;
  }
}
