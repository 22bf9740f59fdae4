import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** Runs `work` against the test inference server in its own process, so the benchmark measures the client alone. */
export async function withTestServer<T>(work: (url: string) => Promise<T>): Promise<T> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./test-server-process.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  try {
    return await work(chunk.toString().trim());
  } finally {
    child.kill('SIGTERM');
  }
}
