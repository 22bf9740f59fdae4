import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface JsonLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

/** The non-blank lines of a JSONL file, streamed (memory stays flat on any file size). */
export async function* readJsonLines(path: string, signal?: AbortSignal): AsyncGenerator<JsonLine> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8', signal }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() !== '') yield { line, text };
  }
}
