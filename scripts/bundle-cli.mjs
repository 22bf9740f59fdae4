#!/usr/bin/env node
// Bundles the CLI (src/cli/main.ts through scripts/cli-bundle-entry.mjs, with everything it imports,
// dependencies included) into ESM files under dist/cli-bundle/, which bin/gymnast.js runs: loading
// ~280 modules one by one (resolve, stat, read, compile each) cost `gymnast collect` ~130 ms of CPU
// before its first request (issue 13: 0.64 -> 0.51 CPU-s to the first request of a 1-row collect).
// Dependencies are bundled in: keeping them external saved only ~60 of those ms (zod and undici are
// most of the modules). Code splitting keeps the lazily imported commands lazy.
// @cortex-js/compute-engine stays external: it is 4 MB and only the math environment imports it,
// lazily. Minifying saved nothing measurable.
//
// The build fails if the bundle would resolve a path it cannot honour: an import.meta use other than a
// rewritten `new URL('<relative>', import.meta.url)`, a rewritten path that names no file, or a
// require.resolve (relative to a chunk, not to the module that asked). Licence comments of bundled
// dependencies are kept at the end of their chunk (legalComments 'eof': ~300 bytes, no time measurable).
//
// Usage: node scripts/bundle-cli.mjs [OUTDIR]   (default dist/cli-bundle; run by `npm run build`)
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = resolve(process.argv[2] ?? join(root, 'dist', 'cli-bundle'));

// The one bare import.meta.url the check lets through: the banner's, for require() (see the build below).
const banner = "import { createRequire as __gymnastCreateRequire } from 'node:module'; const require = __gymnastCreateRequire(import.meta.url);";
const packageRelativeUrl = /new URL\((['"])(\.\.?\/[^'"]*)\1, import\.meta\.url\)/g;
/** What the bundle cannot resolve as its sources do: only a literal relative URL can be rewritten or checked. */
const unresolvable = /\bimport\.meta(?:\.\w+)?|\brequire\.resolve\b/g;

/**
 * Sources find files of the package (assets/, package.json) with `new URL('../../x', import.meta.url)`,
 * relative to where their compiled module sits in dist/ (which mirrors src/). In the bundle,
 * import.meta.url is the chunk's, so each such path is rewritten relative to the bundle's folder.
 * Any other import.meta use in src/, or a path naming no file, is a build error at its source line.
 */
const packageRelativeUrls = {
  name: 'package-relative-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(join(root, 'src') + sep)) return undefined;
      const source = await readFile(args.path, 'utf8');
      if (source.search(unresolvable) === -1) return undefined;
      const errors = [];
      const contents = source.replace(packageRelativeUrl, (_, quote, path, offset) => {
        const target = resolve(dirname(args.path), path);
        if (!existsSync(target)) errors.push(sourceError(args.path, source, offset, `${path} names no file (${target}): the bundle would look for it in vain`));
        let rewritten = relative(outdir, target).split(sep).join('/');
        if (!rewritten.startsWith('.')) rewritten = `./${rewritten}`;
        if (path.endsWith('/') && !rewritten.endsWith('/')) rewritten += '/';
        return `new URL(${quote}${rewritten}${quote}, import.meta.url)`;
      });
      // Offsets in the source: every rewritten URL is blanked the same length, so what is left is unrewritten.
      const rest = source.replace(packageRelativeUrl, (match) => ' '.repeat(match.length));
      for (const found of rest.matchAll(unresolvable)) {
        errors.push(
          sourceError(
            args.path,
            source,
            found.index,
            `${found[0]} is left as is in the bundle, where it is the chunk's, not this module's: write new URL('<relative path>', import.meta.url), which the bundle rewrites`,
          ),
        );
      }
      return errors.length > 0 ? { errors } : { contents, loader: 'ts' };
    });
  },
};

/**
 * zod re-exports all of its ~50 message locales (`z.locales`), ~370 KB that every start of the CLI
 * parsed: gymnast words errors in English only, so the bundle's locales module is English alone
 * (`z.locales.en`, which zod itself configures). The library in dist/ keeps zod as it is.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!args.importer.split(sep).join('/').includes('/node_modules/zod/v4/')) return undefined;
      return {
        path: join(dirname(args.importer), '..', 'locales', 'en-only.js'),
        namespace: 'zod-english-only',
        pluginData: { dir: join(dirname(args.importer), '..', 'locales') },
      };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: args.pluginData.dir,
      loader: 'js',
    }));
  },
};

function sourceError(file, source, offset, text) {
  const before = source.slice(0, offset).split('\n');
  const line = before.length;
  const lineText = source.split('\n')[line - 1];
  return { text, location: { file: relative(root, file), line, column: before.at(-1).length, lineText } };
}

/**
 * The same check over the written bundle, dependencies included: each import.meta is the banner's or a
 * `new URL("<relative>", import.meta.url)` naming a file from the bundle's folder. Returns each other one.
 */
async function checkPathResolution(dir) {
  const problems = [];
  for (const name of (await readdir(dir)).filter((file) => file.endsWith('.js'))) {
    const code = (await readFile(join(dir, name), 'utf8')).replace(banner, (match) => ' '.repeat(match.length));
    const urls = code.replace(packageRelativeUrl, (match, _quote, path) => {
      if (!existsSync(resolve(dir, path))) problems.push(`${name}: new URL(${JSON.stringify(path)}, import.meta.url) names no file from ${dir}`);
      return ' '.repeat(match.length);
    });
    for (const found of urls.matchAll(unresolvable)) {
      const line = code.slice(0, found.index).split('\n').length;
      problems.push(`${name}:${line}: ${found[0]} left in the bundle: ${code.split('\n')[line - 1].trim().slice(0, 160)}`);
    }
  }
  return problems;
}

await rm(outdir, { recursive: true, force: true });
try {
  await build({
    entryPoints: { main: join(root, 'scripts', 'cli-bundle-entry.mjs') },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    splitting: true,
    external: ['@cortex-js/compute-engine'],
    // Bundled CommonJS dependencies (undici, commander) call require() for Node's own modules.
    banner: { js: banner },
    chunkNames: 'chunk-[hash]',
    plugins: [packageRelativeUrls, zodEnglishOnly],
    legalComments: 'eof',
    logLevel: 'warning',
  });
} catch (error) {
  // esbuild has printed each error at its source line; a stack would only bury them.
  if (!Array.isArray(error?.errors)) throw error;
  process.exit(1);
}
const problems = await checkPathResolution(outdir);
if (problems.length > 0) {
  // No bundle rather than a broken one: bin/gymnast.js would prefer it to dist/cli/.
  await rm(outdir, { recursive: true, force: true });
  process.stderr.write(`bundle-cli: the bundle resolves paths it cannot honour (removed ${outdir}):\n  ${problems.join('\n  ')}\n`);
  process.exitCode = 1;
}
