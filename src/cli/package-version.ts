import { readFileSync } from 'node:fs';

/** The version in package.json, read once (the CLI runs from source, so there is no build step to inline it). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
