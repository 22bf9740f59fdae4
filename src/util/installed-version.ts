import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The version of a dependency as installed where gymnast resolves it, for notices; "an unknown
 * version" when it cannot be read. Most packages do not export their package.json, so it is found
 * from the package's entry point upwards. Resolved from gymnast's own package.json (src/ and dist/
 * sit one folder below it, and the CLI bundle rewrites the path), never from the calling module.
 */
export function installedVersion(name: string): string {
  try {
    let folder = dirname(createRequire(new URL('../../package.json', import.meta.url)).resolve(name));
    for (;;) {
      const manifest = readManifest(join(folder, 'package.json'));
      if (manifest?.name === name && typeof manifest.version === 'string') return manifest.version;
      const parent = dirname(folder);
      if (parent === folder) return 'an unknown version';
      folder = parent;
    }
  } catch {
    return 'an unknown version';
  }
}

function readManifest(path: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}
