import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { pickFreePort } from '../../src/servers/config/pick-free-port.js';
import { gymnast } from '../support/run-cli.js';

const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const children: ChildProcess[] = [];
after(() => children.forEach((child) => child.kill('SIGTERM')));

/** Starts `gymnast serve sim ARGS…` and returns its stdout lines up to the one that says it is serving. */
async function serveSim(...args: string[]): Promise<{ child: ChildProcess; lines: string[] }> {
  const child = spawn(process.execPath, [bin, 'serve', 'sim', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const lines: string[] = [];
  for await (const line of createInterface({ input: child.stdout! })) {
    lines.push(line);
    if (line.includes('Ctrl-C stops')) break;
  }
  return { child, lines };
}

/** A port P with P + 1 free too (each checked by listening on it). */
async function twoFreePorts(): Promise<number> {
  const listen = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  // Below the ephemeral range: no connection the suite makes meanwhile takes them before the CLI listens.
  for (;;) {
    const port = await pickFreePort('127.0.0.1');
    if (port < 65_535 && (await listen(port + 1))) return port;
  }
}

describe('gymnast serve sim', () => {
  it('prints one line per replica with its loopback base URL, each serving completions; SIGTERM stops it', async () => {
    const { child, lines } = await serveSim('--replicas', '3', '--port', '0', '--time-scale', '1000');
    const urls = lines.map((line) => /^replica (\d+): (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)).filter((match) => match !== null);
    assert.deepEqual(
      urls.map((match) => Number(match[1])),
      [0, 1, 2],
    );
    assert.equal(new Set(urls.map((match) => match[2])).size, 3);
    for (const [, , url] of urls) {
      const response = await fetch(`${url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'Hello', max_tokens: 8, seed: 1 }),
      });
      const body = (await response.json()) as { model: string; choices: { text: string }[] };
      assert.equal(body.model, 'sim-llama-3.1-8b-h100');
      assert.ok(body.choices[0]!.text.length > 0);
    }
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
  });

  it('puts replica i on --port + i, with the profile and model name asked for', async () => {
    const port = await twoFreePorts();
    const { lines } = await serveSim('--replicas', '2', '--port', String(port), '--profile', 'gpt-oss-20b-h100', '--served-model-name', 'my-model');
    assert.deepEqual(lines.slice(0, 2), [`replica 0: http://127.0.0.1:${port}`, `replica 1: http://127.0.0.1:${port + 1}`]);
    const models = (await (await fetch(`http://127.0.0.1:${port + 1}/v1/models`)).json()) as { data: { id: string }[] };
    assert.deepEqual(
      models.data.map((model) => model.id),
      ['my-model'],
    );
    assert.match(lines[2]!, /gpt-oss-20b-h100/);
  });

  it('refuses a bad flag with one line naming it, and no stack', async () => {
    const cases: [string[], RegExp][] = [
      [['--replicas', '0'], /--replicas <n>.*expected a whole number from 1 to 1024, got 0/],
      [['--replicas', 'two'], /--replicas <n>.*got two/],
      [['--time-scale', '-1'], /--time-scale <x>.*expected a number > 0, got -1/],
      [['--time-scale', 'NaN'], /--time-scale <x>.*got NaN/],
      [['--profile', 'h200'], /no sim profile "h200": name one of llama-3.1-8b-h100, gpt-oss-20b-h100/],
      [['--port', '65535', '--replicas', '2'], /needs ports up to 65536/],
    ];
    for (const [args, message] of cases) {
      const run = await gymnast('serve', 'sim', ...args);
      assert.equal(run.code, 1, args.join(' '));
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trim().split('\n').length, 1, `one line for ${args.join(' ')}: ${run.stderr}`);
      assert.doesNotMatch(run.stderr, /\n\s+at /);
    }
  });
});
