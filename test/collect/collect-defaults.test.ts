import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { collect } from '../../src/collect/collect-run.js';
import { collectDefaults } from '../../src/collect/collect-settings.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';
import { gymnast } from '../support/run-cli.js';

const tokenizer = new CharTokenizer();
const renderer = new TemplateRenderer(tokenizer, new PlainChatTemplate());

/** One arithmetic row, to be run `rollouts` times. */
function input(): { input: string; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-defaults-'));
  const row = { responses_create_params: { input: [{ role: 'user', content: 'what is 1+2?' }] }, agent_ref: { name: 'arithmetic' }, problem: '1+2', answer: 3 };
  writeFileSync(join(dir, 'in.jsonl'), `${JSON.stringify(row)}\n`);
  return { input: join(dir, 'in.jsonl'), output: join(dir, 'out.jsonl') };
}

describe("collect's defaults, one set for the library and the CLI", () => {
  it('the library run without concurrency, maxTurns, sampling or numRepeats runs with the defaults: 32 rollouts in flight at most', async () => {
    let inFlight = 0;
    let peak = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const policy = new ScriptedPolicy({
      tokenizer,
      script: async () => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await released;
        inFlight -= 1;
        return { text: '3' };
      },
    });
    const files = input();
    const run = collect({ ...files, numRepeats: 40, policy, renderer, maxSeqLen: 512 });
    const filled = async () => {
      while (inFlight < 32) await sleep(5);
    };
    await Promise.race([run, filled()]);
    // Time for a 33rd to start, were the run unbounded.
    await sleep(100);
    release();
    const summary = await run;
    assert.equal(peak, 32);
    assert.equal(summary.rollouts, 40);

    const { config } = JSON.parse(readFileSync(summary.paths.run, 'utf8')) as { config: Record<string, unknown> };
    assert.deepEqual(
      { max_turns: config.max_turns, on_max_tokens: config.on_max_tokens, sampling: config.sampling },
      { max_turns: 8, on_max_tokens: 'continue', sampling: { temperature: 1, top_p: 1, max_tokens: 256, greedy: false } },
      'the run records the default limits and sampling',
    );
    const one = collect({ ...input(), policy: new ScriptedPolicy({ tokenizer, script: [{ text: '3' }] }), renderer, maxSeqLen: 512 });
    assert.equal((await one).planned, 1, 'one rollout per row');
  });

  it("gymnast collect --help shows the library's defaults", async () => {
    const { stdout } = await gymnast('collect', '--help');
    // Each option's entry: its line and the indented lines that continue it.
    const entries = stdout.split(/\n(?= {2}-)/).map((entry) => entry.replace(/\s+/g, ' ').trim());
    const entry = (flag: string) => entries.find((text) => new RegExp(`^(-\\w, )?${flag} `).test(text)) ?? '';
    const shown = (flag: string) => /\(default: ([^)]*)\)$/.exec(entry(flag))?.[1];
    assert.deepEqual(
      ['--num-repeats', '--concurrency', '--schedule', '--max-turns', '--max-tokens', '--on-max-tokens', '--temperature', '--max-attempts'].map(shown),
      [
        collectDefaults.numRepeats,
        collectDefaults.concurrency,
        `"${collectDefaults.schedule}"`,
        collectDefaults.maxTurns,
        collectDefaults.sampling.max_tokens,
        `"${collectDefaults.onMaxTokens}"`,
        collectDefaults.sampling.temperature,
        collectDefaults.maxAttempts,
      ].map(String),
    );
    assert.match(entry('--max-line-mb'), new RegExp(`\\(MiB; default ${collectDefaults.maxLineBytes / 2 ** 20}\\)$`));
  });
});
