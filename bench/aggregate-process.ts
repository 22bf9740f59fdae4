import { join } from 'node:path';
import { aggregateFiles } from '../src/collect/aggregate-files.js';
import { writeAggregateFile } from '../src/collect/write-aggregate-file.js';

/**
 * One measurement in its own process: aggregate a run written by `writeRunFiles` (results, failure
 * sidecar, materialized inputs) and write the aggregate file, as `gymnast collect` does at its end.
 * Prints `{seconds, peak_rss_mb, baseline_rss_mb}`; the peak is the kernel's (getrusage), not a sample.
 */
const [dir] = process.argv.slice(2);
const baseline = process.memoryUsage().rss;
const started = performance.now();
const aggregates = await aggregateFiles({
  results: [join(dir!, 'run.jsonl')],
  failures: [join(dir!, 'run_failures.jsonl')],
  materialized: [join(dir!, 'run_materialized_inputs.jsonl')],
});
await writeAggregateFile(join(dir!, 'run_aggregate_metrics.json'), aggregates);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ seconds, peak_rss_mb: (process.resourceUsage().maxRSS * 1024) / 2 ** 20, baseline_rss_mb: baseline / 2 ** 20 })}\n`);
