import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version of a dependency as installed where gymnast's modules find it (the first
 * node_modules/<name> from gymnast's package folder up, as Node looks), or "an unknown version".
 * Most packages do not export their package.json, so it is read as a file. The folder is found from
 * gymnast's own package.json (src/ and dist/ sit one folder below it; the CLI bundle rewrites the
 * path), never from the calling module.
 */
export function installedVersion(name: string): string {
  let folder = dirname(fileURLToPath(new URL('../../package.json', import.meta.url)));
  for (;;) {
    const manifest = readManifest(join(folder, 'node_modules', name, 'package.json'));
    if (manifest !== undefined) return typeof manifest.version === 'string' ? manifest.version : 'an unknown version';
    const parent = dirname(folder);
    if (parent === folder) return 'an unknown version';
    folder = parent;
  }
}

function readManifest(path: string): { version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown };
  } catch {
    return undefined;
  }
}
