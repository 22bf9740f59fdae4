import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gymnast } from '../support/run-cli.js';

describe('gymnast serve agent refuses bad numbers before it listens', { concurrency: 4 }, () => {
  const cases: [string[], RegExp][] = [
    // Node's timers overflow past ~24.8 days and fire at once: every /run would have timed out.
    [['--run-timeout', '3000000'], /--run-timeout.*expected at most a day \(86400 seconds\), got 3000000/],
    [['--run-timeout', '0'], /--run-timeout.*expected a duration in seconds > 0, got 0/],
    [['--concurrency', '0'], /--concurrency.*expected a whole number ≥ 1, got 0/],
    [['--on-max-tokens', 'stop'], /--on-max-tokens.*expected continue or end, got "stop"/],
  ];
  for (const [args, message] of cases) {
    it(`${args.join(' ')}: exit 1, a message naming the flag`, async () => {
      const { code, stdout, stderr } = await gymnast('serve', 'agent', '--env', 'arithmetic', '--port', '0', ...args);
      assert.equal(code, 1);
      assert.match(stderr, message);
      assert.doesNotMatch(stdout, /serving/);
    });
  }
});
