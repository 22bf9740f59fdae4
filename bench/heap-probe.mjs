// Preloaded into a benchmarked child started with --expose-gc (`node --expose-gc --import
// ./bench/heap-probe.mjs …`): on SIGUSR2 it collects garbage (twice: a full collection can leave what
// finalizers free for the next one), then writes process.memoryUsage() as JSON to the file named by
// GYMNAST_BENCH_HEAP_FILE, and a heap snapshot to GYMNAST_BENCH_HEAP_SNAPSHOT when that is set.
// Plain JavaScript, so the child runs the CLI as it ships.
import { writeFileSync } from 'node:fs';
import { writeHeapSnapshot } from 'node:v8';

const file = process.env.GYMNAST_BENCH_HEAP_FILE;
if (file && typeof globalThis.gc === 'function') {
  process.on('SIGUSR2', () => {
    globalThis.gc();
    globalThis.gc();
    const usage = process.memoryUsage();
    const snapshot = process.env.GYMNAST_BENCH_HEAP_SNAPSHOT;
    if (snapshot) writeHeapSnapshot(snapshot);
    writeFileSync(file, JSON.stringify(usage));
  });
}
