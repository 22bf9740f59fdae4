import { readFileSync } from 'node:fs';

/** The version in package.json, read at run time: src/cli and dist/cli are both two levels below it. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
