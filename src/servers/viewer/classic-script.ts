import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { ConfigError } from '../../core/errors/config-error.js';

/** `import { a, b as c } from './x.js';` or `import * as x from './x.js';`, at the start of a line (may span lines). */
const IMPORT = /^import\s+(?:\{([^}]*)\}|\*\s+as\s+([\w$]+))\s+from\s+'(\.{1,2}\/[^']+)';?[ \t]*$/gm;
/** `export function f`, `export async function f`, `export class C`, `export const x`, `export let x`. */
const EXPORT = /^export\s+((?:async\s+)?function\*?|class|const|let)\s+([\w$]+)/gm;
/** Whatever import or export syntax is left once those are rewritten: refused rather than linked wrong. */
const LEFT_OVER = /^[ \t]*(?:import|export)\b|\bimport\s*\(|\bimport\s*\.\s*meta\b/m;

/**
 * The viewer's browser app (plain ES modules under `assetsDirectory`, from `entry`) linked into one
 * classic script, for a copy opened from disk: Chromium loads no module script over file://. Each
 * module becomes a function run once, on first import, with its exports as an object; the viewer's
 * modules use only named imports and exports of declarations, and anything else (a default export, a
 * re-export, a dynamic import, the module's meta object, an import cycle) is a `ConfigError` naming the file and
 * line, so a change to the viewer that this linker cannot honour fails the bundle spec, never a user's page.
 */
export async function classicScript(assetsDirectory: string, entry: string): Promise<string> {
  const modules = new Map<string, string>();
  const visit = async (id: string, trail: readonly string[]): Promise<void> => {
    if (trail.includes(id)) throw new ConfigError(`cannot link the viewer: an import cycle ${[...trail, id].join(' → ')}`);
    if (modules.has(id)) return;
    const { body, imports } = rewrite(id, await readFile(join(assetsDirectory, id), 'utf8'));
    modules.set(id, body);
    for (const imported of imports) await visit(imported, [...trail, id]);
  };
  await visit(entry, []);
  const factories = [...modules].map(([id, body]) => `${JSON.stringify(id)}: (__import, __exports) => {\n${body}\n}`);
  return `// gymnast view, its modules linked into one classic script: a page opened from disk runs no ES module.
(() => {
'use strict';
const factories = {
${factories.join(',\n')}
};
const loaded = new Map();
const load = (id) => {
  if (!loaded.has(id)) {
    const exports = {};
    loaded.set(id, exports);
    factories[id](load, exports);
  }
  return loaded.get(id);
};
load(${JSON.stringify(entry)});
})();
`;
}

/** One module's source as a function body: imports read from `__import`, exports set on `__exports` at its end. */
function rewrite(id: string, source: string): { body: string; imports: string[] } {
  const imports: string[] = [];
  const exported: string[] = [];
  let body = source.replace(IMPORT, (_, names: string | undefined, namespace: string | undefined, specifier: string) => {
    const target = posix.normalize(posix.join(posix.dirname(id), specifier));
    imports.push(target);
    const binding = namespace ?? `{ ${names!.replace(/\s+as\s+/g, ': ').trim()} }`;
    return `const ${binding} = __import(${JSON.stringify(target)});`;
  });
  body = body.replace(EXPORT, (_, declaration: string, name: string) => {
    exported.push(name);
    return `${declaration} ${name}`;
  });
  const left = LEFT_OVER.exec(body);
  if (left) {
    const line = body.slice(0, left.index).split('\n').length;
    throw new ConfigError(`cannot link the viewer: ${id}:${line} has import or export syntax the bundle does not link (${body.split('\n')[line - 1]!.trim()})`);
  }
  return { body: `${body}\nObject.assign(__exports, { ${exported.join(', ')} });`, imports };
}
