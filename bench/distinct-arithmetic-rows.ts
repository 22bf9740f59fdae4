import { createWriteStream, mkdtempSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `rows` arithmetic rows, each a different question (its index in it), written to `in.jsonl` in a new temp folder named from `prefix`; its path. */
export async function writeDistinctArithmeticRows(rows: number, prefix: string): Promise<string> {
  const input = join(mkdtempSync(join(tmpdir(), prefix)), 'in.jsonl');
  const file = createWriteStream(input);
  for (let i = 0; i < rows; i++) {
    const a = 10 + (i % 90);
    const b = 10 + ((i * 7) % 90);
    const line = `${JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: `what is ${a}+${b}? (${i})` }] }, agent_ref: { name: 'arithmetic' }, problem: `${a}+${b}`, answer: a + b })}\n`;
    if (!file.write(line)) await once(file, 'drain');
  }
  file.end();
  await once(file, 'close');
  return input;
}
