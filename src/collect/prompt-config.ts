import { z } from 'zod';
import { ConfigError } from '../core/errors/config-error.js';
import { parseWithIssues } from '../core/schema-issues.js';
import type { DatasetRow } from './dataset-row.js';

/** NeMo Gym's prompt config: templates whose `{field}` placeholders are the row's top-level fields. */
export const PromptConfig = z.object({ user: z.string(), system: z.string().optional() }).strict();
export type PromptConfig = z.infer<typeof PromptConfig>;

export async function loadPromptConfig(path: string): Promise<PromptConfig> {
  const { readYamlFile } = await import('./read-yaml-file.js');
  const parsed = parseWithIssues(PromptConfig, await readYamlFile(path, 'prompt config'));
  if ('data' in parsed) return parsed.data;
  throw new ConfigError(parsed.issues.map(({ field, message }) => `${path}: ${field ? `${field}: ` : ''}${message}`).join('\n'));
}

/**
 * Python's `str.format_map(row)` for plain placeholders: `{name}` is the row's field, `{{` and `}}`
 * are literal braces. A missing field is an error that lists the fields the row has.
 */
export function fillTemplate(template: string, row: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, name: string | undefined) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new ConfigError(`unsupported placeholder {${name ?? ''}}: use {field} with a top-level field name`);
    if (!(name in row)) throw new ConfigError(`the prompt uses {${name}}, but the row has only: ${Object.keys(row).join(', ')}`);
    const value = row[name];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** Whether a row already carries a prompt: prompt configs and pre-baked input are mutually exclusive (NeMo Gym). */
export function hasPrompt(row: DatasetRow): boolean {
  const input = row.responses_create_params?.input;
  return input !== undefined && input !== '' && !(Array.isArray(input) && input.length === 0);
}

export const PROMPT_CONFLICT = 'the row already has a prompt; --prompt-config fills rows without one';

/** The row with `responses_create_params.input` set from the templates; other request fields are kept. */
export function applyPrompt(row: DatasetRow, config: PromptConfig): DatasetRow {
  const input = [
    ...(config.system === undefined ? [] : [{ role: 'system', content: fillTemplate(config.system, row) }]),
    { role: 'user', content: fillTemplate(config.user, row) },
  ];
  return { ...row, responses_create_params: { ...(row.responses_create_params ?? {}), input } };
}
