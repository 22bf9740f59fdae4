import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/**
 * Runs `work` against a server in its own process, so the benchmark measures the client alone: the
 * test inference server (answering `ok`, or with `model: 'counter'` calling the counter tool once
 * and then answering), or another script that prints its URL.
 */
export async function withTestServer<T>(work: (url: string) => Promise<T>, options: { model?: 'ok' | 'counter'; script?: string } = {}): Promise<T> {
  const script = options.script ?? fileURLToPath(new URL('./test-server-process.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, options.model ?? 'ok'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  try {
    return await work(chunk.toString().trim());
  } finally {
    child.kill('SIGTERM');
  }
}
