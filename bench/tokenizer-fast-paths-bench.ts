import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadHfTokenizer } from '../src/tokens/index.js';
import { qwen3Directory } from '../test/support/qwen3.js';
import type { BenchResult } from './bench-result.js';

const run = promisify(execFile);
const PROCESSES = 3;
const LOADS = 5;

interface Codec {
  tokens: number;
  encode_us: number;
  decode_us: number;
  text: boolean;
}

/** Each way in `PROCESSES` processes of its own, alternating; the best encode and decode of each. */
async function codecs(cacheDirectory: string): Promise<Record<'library' | 'json' | 'tables', Codec>> {
  const best = {} as Record<'library' | 'json' | 'tables', Codec>;
  for (let round = 0; round < PROCESSES; round++) {
    for (const way of ['library', 'json', 'tables'] as const) {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', new URL('./tokenizer-process.ts', import.meta.url).pathname, way, cacheDirectory]);
      const codec = JSON.parse(stdout) as Codec;
      if (!codec.text) throw new Error(`bench: ${way} does not decode 8 KB of code back to itself`);
      const previous = best[way];
      best[way] = previous
        ? { ...codec, encode_us: Math.min(previous.encode_us, codec.encode_us), decode_us: Math.min(previous.decode_us, codec.decode_us) }
        : codec;
    }
  }
  return best;
}

/**
 * The patches of @huggingface/tokenizers, each against the library as it is, in this run: the byte-level
 * steps (encode and decode 8 KB of code), and the tokenizer built from cached tables against one built
 * from tokenizer.json (a load; then encoding and decoding through the tables' maps against the library's).
 */
export async function tokenizerFastPaths(): Promise<BenchResult[]> {
  const cacheDirectory = await mkdtemp(join(tmpdir(), 'gymnast-bench-tables-'));
  try {
    await loadHfTokenizer(qwen3Directory, { cacheDirectory });
    const load = { tables: Infinity, json: Infinity };
    for (let round = 0; round < LOADS; round++) {
      for (const [way, directory] of [
        ['tables', cacheDirectory],
        ['json', false],
      ] as const) {
        const started = process.cpuUsage();
        await loadHfTokenizer(qwen3Directory, { cacheDirectory: directory });
        const used = process.cpuUsage(started);
        load[way] = Math.min(load[way], (used.user + used.system) / 1000);
      }
    }
    const { library, json, tables } = await codecs(cacheDirectory);
    const tokens = `Qwen3, ${library.tokens.toLocaleString('en')} tokens`;
    const each = `per token, each way in ${PROCESSES} processes of its own, the best kept`;
    const asItIs = '@huggingface/tokenizers as it is';
    return [
      {
        name: `tokenizer byte-level steps: encode 8 KB of code (${tokens}), ${each}`,
        baseline: { label: asItIs, value: library.encode_us, unit: 'µs' },
        measured: { label: 'byte-level steps done directly', value: json.encode_us, unit: 'µs' },
        lowerIsBetter: true,
      },
      {
        name: `tokenizer byte-level steps: decode the same ids, ${each}`,
        baseline: { label: asItIs, value: library.decode_us, unit: 'µs' },
        measured: { label: 'byte-level steps done directly', value: json.decode_us, unit: 'µs' },
        lowerIsBetter: true,
      },
      {
        name: `tokenizer tables: load Qwen3's tokenizer, CPU (the least of ${LOADS} alternating loads)`,
        baseline: { label: 'from tokenizer.json', value: load.json, unit: 'ms' },
        measured: { label: 'from the cached tables', value: load.tables, unit: 'ms' },
        lowerIsBetter: true,
      },
      {
        name: `tokenizer tables: encode 8 KB of code through the tables' maps (a cost where above 1), ${each}`,
        baseline: { label: "the library's maps", value: json.encode_us, unit: 'µs' },
        measured: { label: "the tables' maps", value: tables.encode_us, unit: 'µs' },
        lowerIsBetter: true,
      },
      {
        name: `tokenizer tables: decode the same ids through the tables (a cost where above 1), ${each}`,
        baseline: { label: "the library's vocabulary", value: json.decode_us, unit: 'µs' },
        measured: { label: 'the tables', value: tables.decode_us, unit: 'µs' },
        lowerIsBetter: true,
      },
    ];
  } finally {
    await rm(cacheDirectory, { recursive: true, force: true });
  }
}
