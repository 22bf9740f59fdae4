import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../fixtures/python/resources_server.py', import.meta.url));

/** The stand-in NeMo Gym server (test/fixtures/python/resources_server.py) on a free loopback port. */
export interface PythonResourcesServer {
  url: string;
  /** How many times each path was POSTed. */
  calls(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export interface PythonServerOptions {
  kind?: 'counter' | 'gymnasium';
  name?: string;
  /** Answer /aggregate_metrics with 404, as a server without it. */
  noAggregate?: boolean;
}

/** Starts the Python server and waits for the port it prints. */
export async function startPythonResourcesServer(options: PythonServerOptions = {}): Promise<PythonResourcesServer> {
  const args = [script, '--kind', options.kind ?? 'counter', '--name', options.name ?? 'counter', ...(options.noAggregate ? ['--no-aggregate'] : [])];
  const child = spawn('python3', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await firstLine(child).then((line) => (JSON.parse(line) as { port: number }).port);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    calls: async () => (await (await fetch(`${url}/_calls`)).json()) as Record<string, number>,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(line));
    child.once('exit', (code) => reject(new Error(`resources_server.py exited with ${code} before printing its port`)));
    child.once('error', reject);
  });
}
