#!/usr/bin/env node
// Bundles the CLI (src/cli/main.ts through scripts/cli-bundle-entry.mjs, with everything it imports,
// dependencies included) into ESM files under dist/cli-bundle/, which bin/gymnast.js runs: loading
// ~280 modules one by one (resolve, stat, read, compile each) cost `gymnast collect` ~130 ms of CPU
// before its first request (issue 13: 0.64 -> 0.51 CPU-s to the first request of a 1-row collect).
// Dependencies are bundled in: keeping them external saved only ~60 of those ms (zod and undici are
// most of the modules). Code splitting keeps the lazily imported commands lazy.
// @cortex-js/compute-engine stays external: it is 46 MB and only the math environment imports it,
// lazily. Minifying saved nothing measurable.
//
// Usage: node scripts/bundle-cli.mjs [OUTDIR]   (default dist/cli-bundle; run by `npm run build`)
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = resolve(process.argv[2] ?? join(root, 'dist', 'cli-bundle'));

/**
 * Sources find files of the package (assets/, package.json) with `new URL('../../x', import.meta.url)`,
 * relative to where their compiled module sits in dist/ (which mirrors src/). In the bundle,
 * import.meta.url is the chunk's, so each such path is rewritten relative to the bundle's folder.
 */
const packageRelativeUrls = {
  name: 'package-relative-urls',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(join(root, 'src') + sep)) return undefined;
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const contents = source.replace(/new URL\((['"])(\.\.?\/[^'"]*)\1, import\.meta\.url\)/g, (_, quote, path) => {
        const target = resolve(dirname(args.path), path);
        let rewritten = relative(outdir, target).split(sep).join('/');
        if (!rewritten.startsWith('.')) rewritten = `./${rewritten}`;
        if (path.endsWith('/') && !rewritten.endsWith('/')) rewritten += '/';
        return `new URL(${quote}${rewritten}${quote}, import.meta.url)`;
      });
      return { contents, loader: 'ts' };
    });
  },
};

await rm(outdir, { recursive: true, force: true });
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
  banner: { js: "import { createRequire as __gymnastCreateRequire } from 'node:module'; const require = __gymnastCreateRequire(import.meta.url);" },
  chunkNames: 'chunk-[hash]',
  plugins: [packageRelativeUrls],
  legalComments: 'none',
  logLevel: 'warning',
});
