import { basename, dirname, extname, join } from 'node:path';

/** Where a run's health report lives beside its output: the summary and the flagged rollouts' verdicts. */
export function healthPaths(output: string): { summary: string; verdicts: string } {
  const stem = join(dirname(output), basename(output, extname(output)));
  return { summary: `${stem}_health.json`, verdicts: `${stem}_health.jsonl` };
}
