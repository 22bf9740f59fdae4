import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { collect, type CollectProgress, type CollectSummary } from '../../src/collect/collect-run.js';
import { loadResumeState } from '../../src/collect/resume-state.js';
import { SamplingParams } from '../../src/core/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';
import { RunIndex } from '../../src/viewer/run-index.js';
import { runOverview } from '../../src/viewer/run-overview.js';
import { arithmeticTaskLine } from '../support/tool-call-run.js';

// biome-ignore lint/suspicious/noExplicitAny: rows of NeMo Gym's files, read field by field as each spec needs
type Row = Record<string, any>;
const readJsonl = (path: string): Row[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row);

/**
 * Three arithmetic tasks, two repeats each: two are answered right, the third's prompt alone is longer
 * than max_seq_len, so the model is never called and no verifier ever scores it. NeMo Gym marks such a
 * rollout `truncated`; it must not count as a wrong answer anywhere.
 */
describe('a prompt longer than max_seq_len is a typed outcome (prompt-too-long, truncated), never a score of 0', () => {
  let dir: string;
  let summary: CollectSummary;
  const progress: CollectProgress[] = [];
  before(async () => {
    const tokenizer = new CharTokenizer();
    dir = mkdtempSync(join(tmpdir(), 'gymnast-prompt-too-long-'));
    const input = join(dir, 'in.jsonl');
    writeFileSync(input, `${[arithmeticTaskLine('1+2', 3), arithmeticTaskLine('4+5', 9), arithmeticTaskLine('2+2', 4, ' '.repeat(200))].join('\n')}\n`);
    const policy = new ScriptedPolicy({
      tokenizer,
      script: (request) => {
        const [, a, b] = /(\d+)\+(\d+)/.exec(request.messages[0]!.content)!;
        return { text: String(Number(a) + Number(b)) };
      },
    });
    summary = await collect({
      input,
      output: join(dir, 'rollouts.jsonl'),
      numRepeats: 2,
      concurrency: 1,
      policy,
      renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
      maxSeqLen: 128,
      maxTurns: 2,
      sampling: SamplingParams.parse({ max_tokens: 16, seed: 1 }),
      health: {},
      onProgress: (at) => progress.push(at),
    });
  });

  it('the row says so: termination prompt-too-long, truncated, no turn', () => {
    const rows = readJsonl(join(dir, 'rollouts.jsonl')).filter((row) => row._ng_task_index === 2);
    assert.equal(rows.length, 2, 'both repeats are written, as results: nothing is lost');
    for (const row of rows) {
      assert.equal(row.termination.kind, 'prompt-too-long');
      assert.match(row.termination.detail, /the prompt is \d+ tokens, leaving no room under max_seq_len 128/);
      assert.deepEqual([row.truncated, row.terminated, row.num_turns], [true, false, 0]);
    }
  });

  it('the aggregate counts them apart, and the mean reward and pass@k are over the scored rollouts only', () => {
    const [agent] = summary.aggregate;
    assert.equal(agent!.rollout_metrics.num_prompt_too_long, 2);
    assert.equal(agent!.rollout_metrics.num_samples, 4, 'the scored samples');
    assert.equal(agent!.rollout_metrics.mean_total_reward, 1);
    assert.equal(agent!.agent_metrics['mean/reward'], 1);
    assert.equal(agent!.agent_metrics['pass@1/accuracy'], 100, 'two tasks, both answered right; the third was never asked');
    assert.equal(agent!.agent_metrics['pass@2/accuracy'], 100);
  });

  it('progress counts them, and its mean reward leaves them out', () => {
    const last = progress.at(-1)!;
    assert.deepEqual([last.done, last.total, last.failures, last.promptTooLong], [6, 6, 0, 2]);
    assert.equal(last.rewardSum / (last.done - last.failures - last.promptTooLong), 1);
  });

  it("a resumed run's progress starts from them too: done, not in the mean reward", () => {
    const state = loadResumeState({ output: join(dir, 'rollouts.jsonl'), failures: join(dir, 'rollouts_failures.jsonl') });
    assert.deepEqual([state.done, state.promptTooLong, state.rewardSum], [6, 2, 4]);
  });

  it('health names them (prompt-too-long), not as a model that never answered, nor as a task that scored 0', () => {
    const health = summary.health!;
    assert.equal(health.checks['prompt-too-long']?.findings, 2);
    assert.equal(health.checks['no-assistant-turn'], undefined);
    assert.equal(health.checks['task-all-zero-reward'], undefined);
    assert.equal(health.zero_turn_rows, 2);
  });

  it('the viewer shows them as their own ending, out of the mean reward and pass@k', async () => {
    const overview = runOverview(await RunIndex.build({ id: 'rollouts', output: join(dir, 'rollouts.jsonl'), failures: join(dir, 'rollouts_failures.jsonl') }));
    assert.equal(overview.terminations['prompt-too-long'], 2);
    assert.equal(overview.counts.prompt_too_long, 2);
    assert.equal(overview.mean_reward, 1);
    assert.deepEqual(overview.pass_at_k, [
      { k: 1, value: 1 },
      { k: 2, value: 1 },
    ]);
  });
});
