import type { z } from 'zod';
import { EnvironmentError } from '../core/errors/environment-error.js';
import { parseWithIssues } from '../core/schema-issues.js';

/**
 * Reads a task's data for an environment, or fails the episode naming every bad field. Environments
 * pass the schema they declare as `taskSchema`, so the check before a run and reset share one rule.
 */
export function parseTaskData<Schema extends z.ZodType>(environment: string, schema: Schema, data: unknown): z.infer<Schema> {
  const parsed = parseWithIssues(schema, data);
  if ('data' in parsed) return parsed.data;
  const issues = parsed.issues.map((issue) => `${issue.field || '(task data)'}: ${issue.message}`).join('; ');
  throw new EnvironmentError(environment, `bad task data: ${issues}`);
}
