import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CollectProgress } from '../../src/collect/collect-run.js';
import { progressDisplay } from '../../src/cli/progress-display.js';
import { visible } from '../support/terminal-screen.js';

/** A stream that says it is a terminal (or not) and keeps what is written to it. */
class Screen extends Writable {
  text = '';
  constructor(
    readonly isTTY: boolean,
    readonly columns = 200,
  ) {
    super();
  }
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

const progress = (done: number): CollectProgress => ({ done, total: 64, failures: 0, promptTooLong: 0, rewardSum: done });

describe("gymnast collect's progress display", () => {
  it('on a terminal: one bar redrawn in place, a notice on a line of its own above it, and the last status on its own line at the end', async () => {
    const screen = new Screen(true);
    const display = await progressDisplay(() => 2, screen as unknown as NodeJS.WriteStream);
    for (let done = 1; done <= 32; done++) display.update(progress(done));
    await sleep(250);
    assert.match(visible(screen.text), /\[############\.{12}\] 32\/64 rollouts, \d+\/min, ETA \S+, mean reward 1\.000, 0 failures, 2 retries/);
    display.notice('a notice');
    for (let done = 33; done <= 64; done++) display.update(progress(done));
    const lines = visible(screen.text).split('\n');
    assert.ok(lines.includes('[collect] a notice'), `the notice is a line of its own: ${JSON.stringify(lines)}`);
    assert.match(lines.at(-2)!, /^\[#{24}\] 64\/64 rollouts, .*, 2 retries$/, 'the last bar shows the last status');
    assert.equal(lines.at(-1), '', 'what follows the bar starts on a line of its own');
    assert.ok(lines.indexOf('[collect] a notice') < lines.length - 2, 'the notice is above the bar');

    const ended = screen.text;
    display.notice('after the run');
    display.stop();
    await sleep(250);
    assert.equal(screen.text, `${ended}[collect] after the run\n`, 'once ended the bar is not drawn again, and a notice is a plain line');
  });

  it('stopped before the last rollout (an interrupted run): the bar is ended and its timer with it', async () => {
    const screen = new Screen(true);
    const display = await progressDisplay(() => 0, screen as unknown as NodeJS.WriteStream);
    display.update(progress(5));
    display.stop();
    const ended = screen.text;
    assert.match(visible(ended), /\[##\.{22}\] 5\/64 rollouts.*\n$/);
    await sleep(250);
    assert.equal(screen.text, ended, 'nothing is drawn after stop (a live timer would also keep the process alive)');
  });

  it('not on a terminal: a plain line at each tenth of the rollouts and at the last, notices as they come', async () => {
    const screen = new Screen(false);
    const display = await progressDisplay(() => 0, screen as unknown as NodeJS.WriteStream);
    for (let done = 1; done <= 64; done++) {
      display.update(progress(done));
      if (done === 10) display.notice('a notice');
    }
    display.stop();
    const lines = screen.text.split('\n');
    assert.deepEqual(
      lines.map((line) => /^\[collect\] (\d+\/64 rollouts|a notice)/.exec(line)?.[1] ?? line),
      [
        '1/64 rollouts',
        '7/64 rollouts',
        'a notice',
        '13/64 rollouts',
        '20/64 rollouts',
        '26/64 rollouts',
        '32/64 rollouts',
        '39/64 rollouts',
        '45/64 rollouts',
        '52/64 rollouts',
        '58/64 rollouts',
        '64/64 rollouts',
        '',
      ],
    );
    assert.doesNotMatch(screen.text, /\x1b|\r/, 'no escape sequences in a log');
  });

  it('shows no ETA until a tenth of the rollouts this run has to do have ended (the first ones promise hours)', async () => {
    const screen = new Screen(false);
    const display = await progressDisplay(() => 0, screen as unknown as NodeJS.WriteStream);
    // A resumed run: 20 rollouts were done before it; this run does 44, and its ETA waits for 5 of them
    // (the next plain line, at the next tenth of all 64, is at 26).
    for (let done = 21; done <= 64; done++) display.update(progress(done));
    const lines = screen.text.trim().split('\n');
    assert.match(lines[0]!, /^\[collect\] 21\/64 rollouts, \d+\/min, mean reward/, `no ETA on the first line: ${lines[0]}`);
    assert.match(lines[1]!, /^\[collect\] 26\/64 rollouts, \d+\/min, ETA \S+, mean reward/, `an ETA at a tenth: ${lines[1]}`);
  });
});
