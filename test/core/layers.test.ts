import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

/** Each layer and the layers it may import (ARCHITECTURE.md); engine may import spec modules only from policy and environments. */
const allowed: Record<string, readonly string[]> = {
  util: [],
  core: ['util'],
  tokens: ['core', 'util'],
  // The HTTP client (deadlines, retries, replicas) that policies, environments and agents share.
  'http-client': ['core', 'util'],
  policy: ['core', 'util', 'tokens', 'http-client'],
  environments: ['core', 'util', 'http-client'],
  engine: ['core', 'util', 'tokens', 'policy/policy.js', 'environments/environment.js'],
  metrics: ['core', 'util'],
  viewer: ['core', 'util', 'metrics'],
  servers: ['core', 'util', 'tokens', 'http-client', 'policy', 'environments', 'engine', 'metrics', 'collect', 'viewer'],
  // The test inference server is the OpenAI-compatible server with seeded replies and faults.
  testing: ['core', 'util', 'tokens/tokenizer.js', 'tokens/chat-template.js', 'policy/policy.js', 'environments/environment.js', 'servers'],
};

const root = new URL('../../src/', import.meta.url).pathname;

function* sourceFiles(directory: string): Generator<string> {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

describe('layers', () => {
  it('never import a layer above them', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(root)) {
      const layer = relative(root, file).split('/')[0]!;
      const rules = allowed[layer];
      if (rules === undefined) continue;
      for (const [, target] of readFileSync(file, 'utf8').matchAll(/from '((?:\.\.\/)+[^']+)'/g)) {
        const imported = relative(root, join(file, '..', target!));
        const importedLayer = imported.split('/')[0]!;
        if (importedLayer === layer) continue;
        if (!rules.some((rule) => imported === rule || imported.startsWith(`${rule}/`) || importedLayer === rule)) {
          violations.push(`${relative(root, file)} imports ${imported}`);
        }
      }
    }
    assert.deepEqual(violations, []);
  });
});
