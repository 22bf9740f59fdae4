import { ConfigError } from './config-error.js';

/** One thing wrong in a config file: where (a dotted YAML path, empty for the file itself) and what was expected there. */
export interface ConfigFileIssue {
  path: string;
  expected: string;
}

/**
 * A config file gymnast refuses before starting anything: every issue names the file, the YAML path
 * and what was expected there, one per line, so a whole file's mistakes are fixed in one pass.
 */
export class ConfigFileError extends ConfigError {
  readonly file: string;
  readonly issues: readonly ConfigFileIssue[];

  constructor(file: string, issues: readonly ConfigFileIssue[]) {
    super(issues.map((issue) => `${file}: ${issue.path || '(top level)'}: ${issue.expected}`).join('\n'));
    this.file = file;
    this.issues = issues;
  }
}
