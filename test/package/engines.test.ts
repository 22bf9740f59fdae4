import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { minVersion, satisfies } from 'semver';

const root = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
interface Locked {
  version: string;
  dev?: boolean;
  engines?: { node?: string };
}
const locked = (JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as { packages: Record<string, Locked> }).packages;

/**
 * Dev dependencies whose engines exclude the oldest Node gymnast claims, each on purpose: npm ci warns
 * EBADENGINE for them, and the suite shows they work on it.
 */
const devExceptions: Record<string, string> = {
  // 6.x, the last line declaring Node 20, does not raise a Responses stream's `error` event, which
  // test/servers/openai-compatible-streaming.test.ts asserts the client does.
  'node_modules/openai': '>=22.0.0',
};

/** Each installed package whose declared Node range leaves out `oldest`, as `path (range)`. */
function excluding(oldest: string, dev: boolean): string[] {
  return Object.entries(locked)
    .filter(([path, entry]) => path !== '' && Boolean(entry.dev) === dev && entry.engines?.node !== undefined)
    .filter(([, entry]) => !satisfies(oldest, entry.engines!.node!))
    .map(([path, entry]) => `${path}@${entry.version} (${entry.engines!.node})`);
}

describe("the Node versions gymnast claims (package.json's engines)", () => {
  const oldest = minVersion(manifest.engines.node)!.version;

  it('are all supported by every runtime dependency, direct or not, so npm ci warns of no unsupported engine', () => {
    assert.deepEqual(excluding(oldest, false), [], `engines.node is ${manifest.engines.node}`);
  });

  it('are supported by every dev dependency but the listed exceptions, each still one', () => {
    const expected = Object.entries(devExceptions).map(([path, range]) => `${path}@${locked[path]?.version} (${range})`);
    assert.deepEqual(excluding(oldest, true).sort(), expected.sort(), `engines.node is ${manifest.engines.node}`);
  });
});
