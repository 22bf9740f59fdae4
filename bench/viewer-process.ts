import { ViewerServer } from '../src/servers/viewer/viewer-server.js';
import { findRuns } from '../src/servers/viewer/run-files.js';
import type { IndexingProgress } from '../src/viewer/run-index.js';

/**
 * One `gymnast view` start in its own process (so peak RSS is the viewer's alone). The server listens
 * before the run is indexed, so the first render is the first served overview and first page of
 * rollouts, however far indexing got (reported as the share of bytes read then); `indexed_ms` is
 * until the whole run is indexed. Prints `{"first_render_ms", "first_render_share", "indexed_ms", "peak_rss_mb", "rollouts"}`.
 */
const started = performance.now();
const server = await ViewerServer.open({ runs: await findRuns(process.argv[2]!), followIntervalMs: 60_000 });
const url = await server.start();
const first = (await (await fetch(`${url}/api/runs/out/overview`)).json()) as { indexing: IndexingProgress };
await (await fetch(`${url}/api/runs/out/rollouts?offset=0&limit=50&sort=-reward`)).json();
const firstRenderMs = performance.now() - started;
await server.indexed();
const indexedMs = performance.now() - started;
const overview = (await (await fetch(`${url}/api/runs/out/overview`)).json()) as { counts: { rollouts: number } };
await server.close();
const share = first.indexing.bytes_total > 0 ? first.indexing.bytes_read / first.indexing.bytes_total : 1;
process.stdout.write(
  JSON.stringify({
    first_render_ms: firstRenderMs,
    first_render_share: share,
    indexed_ms: indexedMs,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    rollouts: overview.counts.rollouts,
  }),
);
