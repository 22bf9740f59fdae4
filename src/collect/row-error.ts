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

  /** How many problems there were in all (`issues` may hold only the first of them). */
  readonly count: number;

  /** `flagProblems`: problems of a flag's value rather than of a line (a bad `--set`), shown first. */
  constructor(issues: readonly RowIssue[], shown = 20, count = issues.length, flagProblems: readonly string[] = []) {
    const lines = [
      ...flagProblems.map((problem) => `  ${problem}`),
      ...issues.slice(0, Math.min(shown, 20)).map((issue) => `  ${issue.file}:${issue.line}: ${issue.field ? `${issue.field}: ` : ''}${issue.message}`),
    ];
    const more = count > lines.length ? [`  … and ${count - lines.length} more`] : [];
    super([`${count} ${count === 1 ? 'problem' : 'problems'} in the input:`, ...lines, ...more].join('\n'));
    this.issues = issues;
    this.count = count;
  }
}
