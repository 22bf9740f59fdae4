import { readFileSync } from 'node:fs';

/** One entry of a layer's "may import" cell: a layer, a folder or a module, perhaps for its types only. */
export interface Allowed {
  readonly path: string;
  readonly typesOnly: boolean;
}

/** One row of the layer table: the layer and what it may import. */
export interface LayerRule {
  readonly layer: string;
  readonly mayImport: readonly Allowed[];
}

/** The page that holds the layer table: the one map of the layers, which the specs read rather than copy. */
export const architecturePage = new URL('../../docs/architecture.md', import.meta.url);

/**
 * The rows of the table under `## Layers` in docs/architecture.md, in order (lowest layer first).
 * Throws, naming the line, on a table that does not have the expected shape, so a reworded page
 * fails the specs clearly instead of allowing everything.
 */
export function readLayerMap(page: string = readFileSync(architecturePage, 'utf8')): LayerRule[] {
  const lines = page.split('\n');
  const heading = lines.indexOf('## Layers');
  if (heading < 0) throw new Error('docs/architecture.md has no "## Layers" section');
  const header = lines.findIndex((line, i) => i > heading && line.startsWith('|'));
  if (header < 0 || cells(lines[header]!).join('|') !== 'layer|owns|may import') {
    throw new Error(`docs/architecture.md:${header + 1}: the layer table must have the columns layer | owns | may import`);
  }
  const rules: LayerRule[] = [];
  for (let i = header + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    const row = cells(lines[i]!);
    const layer = /^`([^`]+)`$/.exec(row[0] ?? '')?.[1];
    if (row.length !== 3 || layer === undefined) throw new Error(`docs/architecture.md:${i + 1}: a row is | \`layer\` | owns | may import |`);
    rules.push({ layer, mayImport: allowedEntries(row[2]!) });
  }
  return rules;
}

/** `` `core`, `policy/policy` (types) `` as entries; "nothing of ours" as none. */
function allowedEntries(cell: string): Allowed[] {
  return [...cell.matchAll(/`([^`]+)`(\s*\(types\))?/g)].map((match) => ({ path: match[1]!, typesOnly: match[2] !== undefined }));
}

const cells = (line: string) =>
  line
    .slice(1, line.endsWith('|') ? -1 : undefined)
    .split('|')
    .map((cell) => cell.trim());

/** The layer a module of src/ belongs to: its top folder, or the file itself for a root file (`index` → `index.ts`). */
export function layerOf(module: string): string {
  const slash = module.indexOf('/');
  return slash < 0 ? `${module}.ts` : module.slice(0, slash);
}

/** Whether `entry` allows importing `module` (a path relative to src/ without extension), with `typeOnly` saying how. */
export function allows(entry: Allowed, module: string, typeOnly: boolean): boolean {
  const covered = module === entry.path || module.startsWith(`${entry.path}/`) || layerOf(module) === entry.path;
  return covered && (typeOnly || !entry.typesOnly);
}
