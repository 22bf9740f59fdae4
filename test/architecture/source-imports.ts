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
 * The text of a TypeScript file with its comments blanked, so an `import('…')` in a doc comment is
 * not taken for an import. Strings and template literals are skipped whole (a `//` inside a URL is not
 * a comment); a `/` where an operand is expected starts a regular expression literal.
 */
export function withoutComments(source: string): string {
  let out = '';
  let i = 0;
  let previous = '';
  while (i < source.length) {
    const char = source[i]!;
    const next = source[i + 1];
    if (char === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
      continue;
    }
    if (char === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
      continue;
    }
    const quoted = char === "'" || char === '"' || char === '`' || (char === '/' && startsOperand(previous));
    if (quoted) {
      const stop = endOfLiteral(source, i);
      out += source.slice(i, stop);
      previous = char;
      i = stop;
      continue;
    }
    out += char;
    if (!/\s/.test(char)) previous = char;
    i += 1;
  }
  return out;
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

/**
 * Every module specifier a file names: `import … from`, `import type … from`, `export … from`,
 * side-effect `import '…'`, dynamic `import('…')` and type-level `typeof import('…')`.
 */
export function importSpecifiers(source: string): string[] {
  const code = withoutComments(source);
  const patterns = [
    /\b(?:import|export)\b[^;'"`]*?\bfrom\s*(['"])([^'"]+)\1/g,
    /\bimport\s*(['"])([^'"]+)\1/g,
    /\bimport\s*\(\s*(['"])([^'"]+)\1\s*\)/g,
  ];
  const found: string[] = [];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) found.push(match[2]!);
  }
  return found;
}

/** One import of ours: both ends as paths relative to src/, without the `.js`/`.ts` extension. */
export interface SourceImport {
  readonly from: string;
  readonly to: string;
}

/** The relative imports of every file under src/, resolved to the files they name. */
export function sourceImports(): SourceImport[] {
  const edges: SourceImport[] = [];
  for (const file of sourceFiles()) {
    const from = modulePath(relative(sourceRoot, file));
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      edges.push({ from, to: modulePath(relative(sourceRoot, join(dirname(file), specifier))) });
    }
  }
  return edges;
}

/** `policy/policy.js`, `policy/policy.ts` and `http-client/undici-pool.d.ts` name the modules `policy/policy` and `http-client/undici-pool`. */
export function modulePath(path: string): string {
  return path.replace(/(\.d)?\.(js|ts)$/, '');
}
