import type { z } from 'zod';
import { EnvironmentError } from '../core/errors/environment-error.js';

/** Reads a task's data for an environment, or fails the episode naming every bad field. */
export function parseTaskData<Schema extends z.ZodType>(environment: string, schema: Schema, data: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(task data)'}: ${issue.message}`).join('; ');
  throw new EnvironmentError(environment, `bad task data: ${issues}`);
}
