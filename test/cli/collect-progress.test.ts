import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gymnast } from '../support/run-cli.js';
import { visible } from '../support/terminal-screen.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const arithmetic = join(root, 'examples/arithmetic.jsonl');
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const noScript = !existsSync('/usr/bin/script') && 'needs script(1) from util-linux';

describe("gymnast collect's progress line", () => {
  it('after --resume, counts the earlier rollouts in its mean reward as it counts them in done/total', async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-progress-')), 'out.jsonl');
    const args = ['collect', '-i', arithmetic, '-o', output, '--num-repeats', '4', '--seed', '5'];
    const first = await gymnast(...args);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(lines(output).length, 64, 'every rollout succeeded');
    // 40 rollouts kept from the first run: the resumed one runs the other 24.
    writeFileSync(output, `${lines(output).slice(0, 40).join('\n')}\n`);

    const resumed = await gymnast(...args, '--resume');
    assert.equal(resumed.code, 0, resumed.stderr);
    const rewards = lines(output).map((line) => (JSON.parse(line) as { reward: number }).reward);
    assert.equal(rewards.length, 64);
    const mean = (rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length).toFixed(3);
    const progress = [...resumed.stderr.matchAll(/^\[collect\] (\d+)\/64 rollouts, .*, mean reward (\S+), (\d+) failures/gm)].map(
      ([, done, reward, failures]) => ({ done: Number(done), reward, failures: Number(failures) }),
    );
    assert.equal(progress[0]?.done, 41, 'the first line counts the 40 done before');
    assert.deepEqual(progress.at(-1), { done: 64, reward: mean, failures: 0 }, `the last line's mean reward is the output's (${mean})`);
  });

  it("on a terminal: a live bar that ends on the last status, the run's summary on lines of their own below it, and the process exits", {
    skip: noScript,
  }, async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-progress-')), 'out.jsonl');
    const { code, screen } = await onTerminal(['collect', '-i', arithmetic, '-o', output, '--num-repeats', '2']);
    assert.equal(code, 0, screen.join('\n'));
    const bar = screen.findIndex((line) => /^\[#{24}\] 32\/32 rollouts, \d+\/min, ETA 0s, mean reward \d\.\d{3}, 0 failures, 0 retries$/.test(line));
    assert.ok(bar >= 0, `the bar ends full, on the last status:\n${screen.join('\n')}`);
    assert.match(screen[bar + 1]!, /^\[collect\] reading the rollouts back/, 'the next line starts below the bar');
    assert.deepEqual(
      screen.filter((line) => /^\[collect\] \d+\/32 rollouts/.test(line)),
      [],
      'no plain progress lines on a terminal',
    );
    assert.equal(lines(output).length, 32);
  });

  it('on a terminal, Ctrl-C: what collect says goes on a line of its own above the bar, which goes on until the rollouts in flight end', {
    skip: noScript,
  }, async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-progress-')), 'out.jsonl');
    const { code, screen } = await onTerminal(['collect', '-i', arithmetic, '-o', output, '--num-repeats', '24', '--concurrency', '16'], {
      ctrlCAfter: / rollouts, /,
    });
    assert.equal(code, 130, screen.join('\n'));
    const stopping = screen.findIndex((line) => line.startsWith('[collect] stopping: finishing the rollouts in flight'));
    assert.ok(stopping >= 0, `the notice starts a line, not glued to the bar:\n${screen.join('\n')}`);
    assert.ok(
      screen.slice(stopping + 1).some((line) => /^\[#*\.+\] \d+\/384 rollouts, /.test(line)),
      `the bar is drawn below it:\n${screen.join('\n')}`,
    );
    assert.match(screen.at(-2)!, /^gymnast: aborted: interrupted before every rollout ran/);
  });
});

/**
 * `gymnast ARGS` on a pseudo-terminal (util-linux's script(1)), stdout left out; what the terminal
 * showed, line by line. `ctrlCAfter`: once the screen matches it, Ctrl-C is typed, as a user would.
 */
async function onTerminal(args: readonly string[], options: { ctrlCAfter?: RegExp } = {}): Promise<{ code: number | null; screen: string[] }> {
  const command = [process.execPath, join(root, 'bin/gymnast.js'), ...args].map((arg) => `'${arg}'`).join(' ');
  const child = spawn('/usr/bin/script', ['-qec', `${command} > /dev/null`, '/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'], timeout: 60_000 });
  let shown = '';
  child.stdout.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
    if (options.ctrlCAfter?.test(shown)) {
      child.stdin.write('\x03');
      delete options.ctrlCAfter;
    }
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  child.stdin.end();
  return { code, screen: visible(shown.replaceAll('\r\n', '\n')).split('\n') };
}
