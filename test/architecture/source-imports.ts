import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** The source tree the architecture specs walk. */
export const sourceRoot = new URL('../../src/', import.meta.url).pathname;

/** Every TypeScript file under `directory`, declarations included, as absolute paths. */
export function* sourceFiles(directory: string = sourceRoot): Generator<string> {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

/**
 * A TypeScript file's code with its literals masked: comments blanked, each quoted string replaced by
 * `'N'`, its index in `strings`, and template and regular expression literals emptied. An import in a
 * comment or inside a string is then no import, and a `//` in a URL starts no comment. A `/` where an
 * operand is expected starts a regular expression.
 */
export function maskLiterals(source: string): { code: string; strings: string[] } {
  const strings: string[] = [];
  let code = '';
  let previous = '';
  let i = 0;
  while (i < source.length) {
    const char = source[i]!;
    const next = source[i + 1];
    if (char === '/' && (next === '/' || next === '*')) {
      const end = next === '/' ? source.indexOf('\n', i) : source.indexOf('*/', i + 2);
      const stop = end < 0 ? source.length : next === '/' ? end : end + 2;
      code += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
      continue;
    }
    if (char === "'" || char === '"' || char === '`' || (char === '/' && startsOperand(previous))) {
      const stop = endOfLiteral(source, i);
      if (char === "'" || char === '"') {
        code += `'${strings.length}'`;
        strings.push(source.slice(i + 1, stop - 1));
      } else {
        code += `${char}${char}`;
      }
      previous = char;
      i = stop;
      continue;
    }
    code += char;
    if (!/\s/.test(char)) previous = char;
    i += 1;
  }
  return { code, strings };
}

/** Whether a `/` after this character begins a regular expression rather than a division. */
function startsOperand(previous: string): boolean {
  return previous === '' || '(,=:[!&|?{};+-*%<>~^'.includes(previous);
}

/** The index just past the string, template or regular expression literal opening at `start`. */
function endOfLiteral(source: string, start: number): number {
  const quote = source[start]!;
  let inClass = false;
  for (let i = start + 1; i < source.length; i += 1) {
    const char = source[i]!;
    if (char === '\\') i += 1;
    else if (quote === '/' && char === '[') inClass = true;
    else if (quote === '/' && char === ']') inClass = false;
    else if (char === quote && !inClass) return i + 1;
    else if (char === '\n' && quote !== '`') return i + 1;
  }
  return source.length;
}

/** One module a file names, and whether only its types are taken (nothing of it loads at run time). */
export interface ImportSpecifier {
  readonly specifier: string;
  readonly typeOnly: boolean;
}

/**
 * Every module a file names: `import … from`, `export … from`, side-effect `import '…'`, dynamic
 * `import('…')`, and their type-only forms (`import type`, `export type`, `typeof import('…')`). An
 * `import { type A }` still loads the module under `verbatimModuleSyntax`, so it is not type-only.
 */
export function importSpecifiers(source: string): ImportSpecifier[] {
  const { code, strings } = maskLiterals(source);
  const found: ImportSpecifier[] = [];
  const add = (index: string, typeOnly: boolean) => found.push({ specifier: strings[Number(index)]!, typeOnly });
  for (const match of code.matchAll(/\b(?:import|export)\b(\s+type\b)?[^;'`]*?\bfrom\s*'(\d+)'/g)) add(match[2]!, match[1] !== undefined);
  for (const match of code.matchAll(/\bimport\s*'(\d+)'/g)) add(match[1]!, false);
  for (const match of code.matchAll(/(\btypeof\s+)?\bimport\s*\(\s*'(\d+)'\s*\)/g)) add(match[2]!, match[1] !== undefined);
  return found;
}

/** One import of ours: both ends as paths relative to src/, without the `.js`/`.ts` extension. */
export interface SourceImport {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

/** The relative imports of every file under src/, resolved to the modules they name. */
export function sourceImports(): SourceImport[] {
  const edges: SourceImport[] = [];
  for (const file of sourceFiles()) {
    const from = modulePath(relative(sourceRoot, file));
    for (const { specifier, typeOnly } of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      edges.push({ from, to: modulePath(relative(sourceRoot, join(dirname(file), specifier))), typeOnly });
    }
  }
  return edges;
}

/** `policy/policy.js`, `policy/policy.ts` and `http-client/undici-pool.d.ts` name the modules `policy/policy` and `http-client/undici-pool`. */
export function modulePath(path: string): string {
  return path.replace(/(\.d)?\.(js|ts)$/, '');
}
