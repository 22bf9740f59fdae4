import { ViewerServer } from '../src/servers/viewer/viewer-server.js';
import { findRuns } from '../src/servers/viewer/run-files.js';

/**
 * One `gymnast view` start in its own process (so peak RSS is the viewer's alone): from nothing to a
 * served overview and first page of rollouts, what the browser needs for its first render.
 * Prints `{"first_render_ms": …, "peak_rss_mb": …, "rollouts": …}`.
 */
const started = performance.now();
const server = await ViewerServer.open({ runs: await findRuns(process.argv[2]!), followIntervalMs: 60_000 });
const url = await server.start();
const overview = (await (await fetch(`${url}/api/runs/out/overview`)).json()) as { counts: { rollouts: number } };
await (await fetch(`${url}/api/runs/out/rollouts?offset=0&limit=50&sort=-reward`)).json();
const firstRenderMs = performance.now() - started;
await server.close();
process.stdout.write(JSON.stringify({ first_render_ms: firstRenderMs, peak_rss_mb: process.resourceUsage().maxRSS / 1024, rollouts: overview.counts.rollouts }));
