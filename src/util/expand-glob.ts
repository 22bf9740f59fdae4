import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Files matching comma-separated patterns whose last path segment may hold `*` and `?` (Node 20 has
 * no fs.glob). Sorted and without duplicates; a pattern with no wildcard must name an existing file.
 */
export function expandGlob(patterns: string): string[] {
  const files = new Set<string>();
  for (const pattern of patterns
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    if (!/[*?]/.test(pattern)) {
      if (existsSync(pattern)) files.add(pattern);
      continue;
    }
    const directory = dirname(pattern);
    const matcher = new RegExp(
      `^${basename(pattern)
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
    if (!existsSync(directory)) continue;
    for (const name of readdirSync(directory)) if (matcher.test(name)) files.add(join(directory, name));
  }
  return [...files].sort();
}
