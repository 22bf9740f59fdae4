import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { allows, layerOf, readLayerMap } from './layer-map.js';
import { importSpecifiers, maskLiterals, modulePath, sourceFiles, sourceImports, sourceRoot } from './source-imports.js';

// The one map of the layers is the table in docs/architecture.md: these specs read it, so the page
// and the rule cannot disagree.
const map = readLayerMap();

describe('the layer map in docs/architecture.md', () => {
  it('has a row for every folder and root file of src/, and none for anything else', () => {
    const entries = readdirSync(sourceRoot, { withFileTypes: true }).filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'));
    assert.deepEqual(map.map((rule) => rule.layer).sort(), entries.map((entry) => entry.name).sort());
  });

  it('is ordered: a layer may import only layers above it, and names only modules and folders that exist', () => {
    const problems: string[] = [];
    map.forEach((rule, row) => {
      const above = new Set(map.slice(0, row).map((earlier) => earlier.layer));
      for (const { path } of rule.mayImport) {
        if (!above.has(layerOf(path.includes('/') ? path : `${path}/`))) problems.push(`${rule.layer} may import ${path}, which is not a layer above it`);
        const exists = existsSync(join(sourceRoot, `${path}.ts`)) || (existsSync(join(sourceRoot, path)) && statSync(join(sourceRoot, path)).isDirectory());
        if (!exists) problems.push(`${rule.layer} may import ${path}, which is no module or folder of src/`);
      }
    });
    assert.deepEqual(problems, []);
  });
});

describe('layers', () => {
  it('read every kind of import: static, re-export, side-effect and dynamic, type-only only when nothing loads', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "import { type C } from './c.js';",
      'import {',
      '  d,',
      '  type E,',
      "} from './d.js';",
      "export { f } from './f.js';",
      "export type { G } from './g.js';",
      "export * from './h.js';",
      "import './i.js';",
      "const j = await import('./j.js');",
      "type K = typeof import('./k.js');",
      "// import { l } from './commented.js'; and import('./commented.js')",
      "/* import { m } from './commented.js'; */",
      "const url = 'http://example.com/'; const n = 'import(\"./string.js\")';",
      "const quote = /'/; const o = 1;",
    ].join('\n');
    assert.deepEqual(
      importSpecifiers(source)
        .map(({ specifier, typeOnly }) => `${specifier}${typeOnly ? ' (types)' : ''}`)
        .sort(),
      ['../b.js (types)', './a.js', './c.js', './d.js', './f.js', './g.js (types)', './h.js', './i.js', './j.js', './k.js (types)'],
    );
  });

  it('never import what their row of the map does not allow, type imports included', () => {
    const rules = new Map(map.map((rule) => [rule.layer, rule.mayImport]));
    const violations: string[] = [];
    for (const { from, to, typeOnly } of sourceImports()) {
      const layer = layerOf(from);
      if (layerOf(to) === layer) continue;
      const allowed = rules.get(layer) ?? [];
      if (!allowed.some((entry) => allows(entry, to, typeOnly))) violations.push(`${from} imports ${typeOnly ? 'types of ' : ''}${to}`);
    }
    assert.deepEqual(violations, []);
  });
});

describe('testing', () => {
  it('composes servers and never subclasses one: a subclass needs hooks that only tests use in production code', () => {
    const subclasses: string[] = [];
    for (const file of sourceFiles(join(sourceRoot, 'testing'))) {
      const { code, strings } = maskLiterals(readFileSync(file, 'utf8'));
      const fromServers = new Set<string>();
      for (const [, names, index] of code.matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'(\d+)'/g)) {
        if (!modulePath(relative(sourceRoot, join(dirname(file), strings[Number(index)]!))).startsWith('servers/')) continue;
        for (const name of names!.split(','))
          fromServers.add(
            name
              .replace(/^\s*type\s+/, '')
              .split(/\s+as\s+/)
              .at(-1)!
              .trim(),
          );
      }
      for (const [, base] of code.matchAll(/\bextends\s+([\w$]+)/g)) {
        if (fromServers.has(base!)) subclasses.push(`${relative(sourceRoot, file)} extends ${base}`);
      }
    }
    assert.deepEqual(subclasses, []);
  });
});
