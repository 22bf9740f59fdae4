import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gymnast } from '../support/run-cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const arithmetic = join(root, 'examples/arithmetic.jsonl');
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);

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
    const progress = [...resumed.stderr.matchAll(/^\[collect\] (\d+)\/64 rollouts, .*, mean reward (\S+), (\d+) failures/gm)].map(([, done, reward, failures]) => ({ done: Number(done), reward, failures: Number(failures) }));
    assert.equal(progress[0]?.done, 41, 'the first line counts the 40 done before');
    assert.deepEqual(progress.at(-1), { done: 64, reward: mean, failures: 0 }, `the last line's mean reward is the output's (${mean})`);
  });
});
