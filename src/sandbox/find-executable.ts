import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first executable `name` in the folders of `path` (a PATH value), or undefined. */
export function findExecutable(name: string, path: string = process.env.PATH ?? ''): string | undefined {
  for (const folder of path.split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}
