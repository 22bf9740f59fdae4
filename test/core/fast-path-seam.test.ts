import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = 'docs/fast-paths.md';

/** `// Fast path: mirrors <what>; <gain> (docs/fast-paths.md#<section>); guard: <spec>.` */
const HEADER =
  /^\/\/ Fast path: mirrors (?<mirrors>[^;]+); (?<gain>[^;]+) \(docs\/fast-paths\.md#(?<section>[a-z0-9-]+)\); guard: (?<guard>test\/[\w/-]+-fast-path\.test\.ts)\.$/;

function* files(directory: string): Generator<string> {
  for (const entry of readdirSync(join(root, directory), { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

const fastPathFiles = [...files('src')].filter((path) => path.endsWith('.fast.ts'));
const docs = readFileSync(join(root, DOCS), 'utf8');

/** The text of a section of docs/fast-paths.md: from its `<a id>` to the next one. */
function section(id: string): string | undefined {
  const start = docs.indexOf(`<a id="${id}"></a>`);
  if (start < 0) return undefined;
  const next = docs.indexOf('<a id="', start + 1);
  return docs.slice(start, next < 0 ? undefined : next);
}

describe('fast paths have one seam (docs/fast-paths.md)', () => {
  it('every *.fast.ts file starts with its header line: what it mirrors, its gain, its section of docs/fast-paths.md and its guard spec', () => {
    assert.ok(fastPathFiles.length > 0);
    for (const path of fastPathFiles) {
      const header = readFileSync(join(root, path), 'utf8').split('\n')[0]!;
      const match = HEADER.exec(header);
      assert.ok(match, `${path}: "${header}" is not a header line`);
      const { gain, section: id, guard } = match.groups!;
      assert.ok(existsSync(join(root, guard!)), `${path}: its guard spec ${guard} does not exist`);
      const text = section(id!);
      assert.ok(text, `${path}: ${DOCS} has no section ${id}`);
      const figures = gain!.match(/[\d.]+(?:–[\d.]+)?×/g) ?? [];
      assert.ok(figures.length > 0, `${path}: its gain "${gain}" has no figure (as 2.7× or 24–70×)`);
      for (const figure of figures) assert.ok(text.includes(figure), `${path}: section ${id} of ${DOCS} does not state its gain ${figure}`);
      assert.ok(text.includes(path) || text.includes(`${dirname(path)}/`), `${path}: section ${id} of ${DOCS} does not name the file or its folder`);
    }
  });

  it('every *-fast-path.test.ts spec guards a fast path, and every file docs/fast-paths.md names as one exists', () => {
    const guards = new Set(fastPathFiles.map((path) => HEADER.exec(readFileSync(join(root, path), 'utf8').split('\n')[0]!)?.groups?.guard));
    for (const spec of [...files('test')].filter((path) => path.endsWith('-fast-path.test.ts')))
      assert.ok(guards.has(spec), `${spec} is named by no fast path's header`);
    for (const [named] of docs.matchAll(/src\/[\w/.-]+\.fast\.ts/g)) assert.ok(existsSync(join(root, named)), `${DOCS} names ${named}, which does not exist`);
  });

  it("imports a package's unexported paths (<package>/lib/…, /dist/, /src/) only from *.fast.ts files", () => {
    const deep = /(?:from |import\()'((?:@[\w.-]+\/)?[\w.-]+\/(?:lib|dist|src)\/[^']*)'/g;
    for (const path of [...files('src')].filter((file) => file.endsWith('.ts') && !file.endsWith('.fast.ts') && !file.endsWith('.d.ts'))) {
      const found = [...readFileSync(join(root, path), 'utf8').matchAll(deep)].map((match) => match[1]);
      assert.deepEqual(found, [], `${relative(root, join(root, path))} reaches into a package: a fast path, which belongs in a *.fast.ts file`);
    }
  });
});
