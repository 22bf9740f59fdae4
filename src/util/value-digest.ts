import { createHash } from 'node:crypto';

/**
 * A short digest of a JSON value, equal for values that mean the same to a pydantic model: object
 * keys in any order, and a key set to null the same as a key left out (pydantic writes every unset
 * optional field as null when it echoes a row back). `previous` chains digests (a list's prefixes).
 */
export function valueDigest(value: unknown, previous = ''): string {
  return createHash('sha1').update(previous).update(canonicalJson(value)).digest('base64');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== null && record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
}
