import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** A file to send, or why not. */
export type StaticAnswer = { status: 200; body: Buffer; contentType: string } | { status: 400 | 404; message: string };

/**
 * The front-end file a path names under `root`: `/` is `index.html`; `/static/x` and `/x` are both `x`.
 * A path with a `..` segment (raw or percent-encoded) is refused outright, and whatever resolves
 * outside `root` is not served.
 */
export async function staticFile(root: string, rawPath: string): Promise<StaticAnswer> {
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return { status: 400, message: `bad path ${rawPath}` };
  }
  if (path.split(/[/\\]/).includes('..') || path.includes('\0'))
    return { status: 400, message: `refused path ${rawPath}: it climbs out of the viewer's folder` };
  const relative = path === '/' ? 'index.html' : path.replace(/^\/(static\/)?/, '');
  const base = resolve(root);
  const file = resolve(base, relative);
  if (!file.startsWith(base + sep) || !existsSync(file) || !statSync(file).isFile()) return { status: 404, message: `no file ${rawPath}` };
  return { status: 200, body: await readFile(file), contentType: CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream' };
}
