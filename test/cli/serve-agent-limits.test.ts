import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';

const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;

/** Starts `gymnast serve agent ARGS…` on a free port, resolves with its stderr up to its limits line, and stops it. */
async function startupLines(...args: string[]): Promise<string> {
  const child = spawn(process.execPath, [bin, 'serve', 'agent', '--env', 'arithmetic', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = once(child, 'exit');
  try {
    // The limits line is said at start, before the server says where it serves (on the other pipe,
    // so it may arrive a moment after), not when the first /run comes.
    let deadline = Date.now() + 60_000;
    while (!/^limits: /m.test(stderr)) {
      const ended = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 50))]);
      if (ended) assert.fail(`serve agent exited: ${stderr}`);
      if (/serving agent/.test(stdout)) deadline = Math.min(deadline, Date.now() + 5_000);
      if (Date.now() > deadline) assert.fail(`no limits line at start (stdout ${JSON.stringify(stdout)}, stderr ${JSON.stringify(stderr)})`);
    }
    return stderr;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

describe('gymnast serve agent says the limits its rollouts run by when it starts, as collect says them at its end', () => {
  it('the defaults, with the context length the model reports', async () => {
    const stderr = await startupLines();
    assert.match(
      stderr,
      /^limits: --max-turns 8 \(NeMo RL: unbounded\), --concurrency 32 \(NeMo Gym: unbounded\), --max-seq-len \d+, --on-max-tokens continue$/m,
    );
  });

  it('the ones given', async () => {
    const stderr = await startupLines('--max-turns', '3', '-c', '5', '--max-seq-len', '64', '--on-max-tokens', 'end');
    assert.match(stderr, /^limits: --max-turns 3 \(NeMo RL: unbounded\), --concurrency 5 \(NeMo Gym: unbounded\), --max-seq-len 64, --on-max-tokens end$/m);
  });
});
