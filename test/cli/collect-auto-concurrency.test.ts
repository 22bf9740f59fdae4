import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startSimFleet, type StartedSimFleet } from '../../src/testing/index.js';
import { qwen3Directory, qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';
import { gymnast } from '../support/run-cli.js';

const root = new URL('../../', import.meta.url).pathname;
const input = join(root, 'examples/arithmetic.jsonl');
const fleets: StartedSimFleet[] = [];
after(() => Promise.all(fleets.map((fleet) => fleet.close())));

const output = () => join(mkdtempSync(join(tmpdir(), 'gymnast-auto-')), 'rollouts.jsonl');

describe('gymnast collect --concurrency auto', () => {
  it('runs against vLLM servers (the simulated fleet over HTTP), reading their /metrics, and says what concurrency it ran at', async () => {
    const tokenizer = { tokenizer: await qwen3Tokenizer(), template: await qwen3Template(), source: 'Qwen3' };
    const fleet = await startSimFleet({ replicas: 2, timeScale: 20, tokenizer });
    fleets.push(fleet);
    const out = output();
    const urls = fleet.urls.flatMap((url) => ['--base-url', url]);
    const run = await gymnast(
      'collect',
      '-i',
      input,
      '-o',
      out,
      '--policy',
      'vllm-completions',
      ...urls,
      '--tokenizer',
      qwen3Directory,
      '--num-repeats',
      '4',
      '--max-tokens',
      '64',
      '--concurrency',
      'auto',
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 64);
    assert.match(run.stdout, /--concurrency auto \(NeMo Gym: unbounded\)/);
    assert.match(run.stdout, /^--concurrency auto: \d+ to \d+ rollouts in flight, \d+ at the end \(\d+ polls? of the servers' \/metrics\)$/m);
    assert.ok(
      fleet.reports().every((report) => report.requestsSubmitted > 0),
      'both replicas served',
    );
  });

  it('is refused before any work with the lockstep schedule, and with a policy that has no servers', async () => {
    const lockstep = await gymnast('collect', '-i', input, '-o', output(), '--concurrency', 'auto', '--schedule', 'lockstep');
    assert.equal(lockstep.code, 1);
    assert.match(lockstep.stderr, /concurrency: auto needs the async schedule/);
    const embedded = await gymnast('collect', '-i', input, '-o', output(), '--concurrency', 'auto');
    assert.equal(embedded.code, 1);
    assert.match(embedded.stderr, /concurrency auto reads the policy's vLLM servers' \/metrics: policy embedded has no servers/);
  });
});
