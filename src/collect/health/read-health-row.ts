import { InvalidRowError } from '../../core/errors/invalid-row-error.js';
import { readFullRow, readRowKeys, type ReadFullRow } from '../../core/row-reader.js';
import type { RowKeys } from '../../core/result-row.js';
import { healthFinding, type HealthFinding } from '../../metrics/health/health-check.js';

/** A line read for the health checks: the row, or what was wrong with it and its keys if those could be read. */
export type HealthRow = { ok: true; read: ReadFullRow } | { ok: false; finding: HealthFinding; keys: RowKeys | undefined };

/** Python's json writes NaN and ±Infinity as bare words (not JSON); as values, never inside strings. */
const NON_FINITE = /(?<=[[,:]\s*)(?:-?Infinity|NaN)(?=\s*[\]},])/g;

/**
 * Reads one line's value (`parseLenient`'s: undefined when it is not JSON) through the row schema
 * (`readFullRow`). A line that is not JSON, or not a row, is a finding rather than the end of the
 * report: a health check must see past a bad row to the rest. Non-finite logprobs and logprobs of the
 * wrong length fail the message schema; they get their own checks.
 */
export function readHealthRow(value: unknown, where: string): HealthRow {
  if (value === undefined) return { ok: false, finding: healthFinding('row-unreadable', 'not valid JSON'), keys: undefined };
  try {
    return { ok: true, read: readFullRow(value, where) };
  } catch (error) {
    if (!(error instanceof InvalidRowError)) throw error;
    return { ok: false, finding: classify(error), keys: keysOf(value, where) };
  }
}

/** The JSON value of a line, with bare NaN / Infinity read as null (which the schema then refuses by field). */
export function parseLenient(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    try {
      return JSON.parse(text.replace(NON_FINITE, 'null')) as unknown;
    } catch {
      return undefined;
    }
  }
}

function classify(error: InvalidRowError): HealthFinding {
  const message = error.message.slice(error.where.length + 2);
  if (/generation_logprobs\.\d+$/.test(error.field)) return healthFinding('logprobs-non-finite', `${error.field}: not a finite number`);
  if (/generation_logprobs$/.test(error.field)) return healthFinding('logprobs-length', message);
  // A message whose ids the row stores on response.output, which cannot give them back (`restoreRowTokens`).
  if (/token_count$/.test(error.field)) return healthFinding('training-tokens-malformed', message);
  return healthFinding('row-unreadable', message);
}

function keysOf(value: unknown, where: string): RowKeys | undefined {
  try {
    return readRowKeys(value, where);
  } catch {
    return undefined;
  }
}
