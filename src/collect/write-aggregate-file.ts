import type { Writable } from 'node:stream';
import { writeFileAtomic } from '../util/write-file-atomic.js';
import { ChunkedWriter } from './result-files.js';
import type { CollectedAggregate } from './server-aggregate.js';

/**
 * Writes aggregates as NeMo Gym lays them out (a JSON list, indented by 2), streaming the per-task
 * groups; atomically, so a crash or a full disk keeps the previous file whole.
 */
export async function writeAggregateFile(path: string, aggregates: readonly CollectedAggregate[]): Promise<void> {
  await writeFileAtomic(path, (file) => writeAggregate(file, aggregates));
}

/** `writeAggregateFile` to any stream (stdout), which stays open. */
export async function writeAggregate(out: Writable, aggregates: readonly CollectedAggregate[]): Promise<void> {
  const writer = new ChunkedWriter(out);
  for (const [i, aggregate] of aggregates.entries()) {
    await writer.write(`${i === 0 ? '[' : ','}\n  {\n`);
    for (const field of ['agent_ref', 'computed_by', 'agent_metrics', 'key_metrics', 'rollout_metrics'] as const) {
      if (aggregate[field] !== undefined) await writer.write(`    "${field}": ${indented(aggregate[field], 4)},\n`);
    }
    await writer.write('    "group_level_metrics": [');
    let groups = 0;
    for (const group of aggregate.group_level_metrics) await writer.write(`${groups++ === 0 ? '' : ','}\n      ${indented(group, 6)}`);
    await writer.write(`${groups === 0 ? ']' : '\n    ]'}\n  }`);
  }
  await writer.write(aggregates.length === 0 ? '[]\n' : '\n]\n');
  await writer.flush();
}

/** `JSON.stringify(value, null, 2)` as it reads nested `depth` spaces deep. */
function indented(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replaceAll('\n', `\n${' '.repeat(depth)}`);
}
