import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { collect } from '../../src/collect/collect-run.js';
import { SamplingParams } from '../../src/core/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gymnast-no-aggregate-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const tokenizer = new CharTokenizer();
const input = join(dir, 'in.jsonl');
const output = join(dir, 'out.jsonl');
const aggregate = join(dir, 'out_aggregate_metrics.json');
writeFileSync(input, `${JSON.stringify({ responses_create_params: { input: 'what is 1+2?' }, agent_ref: { name: 'math' }, expected_answer: '3' })}\n`);

/** `collect` of the one row twice, with a policy that answers or one whose server is down. */
function run(answering: boolean, extra: { overwrite?: boolean } = {}) {
  const policy = new ScriptedPolicy({ tokenizer, script: () => (answering ? { text: '3' } : { error: new Error('server down') }) });
  return collect({
    input,
    output,
    concurrency: 1,
    numRepeats: 2,
    policy,
    renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
    maxSeqLen: 512,
    maxTurns: 1,
    sampling: SamplingParams.parse({ max_tokens: 8 }),
    ...extra,
  });
}

// NeMo Gym asks no server and writes no file when no rollout came back:
// 002 rollout_collection.py _call_aggregate_metrics, `if not results: return None`.
describe('the aggregate file of a run without one successful rollout (002 rollout_collection.py _call_aggregate_metrics)', () => {
  it('is not written, and one an earlier run left over the same output is removed', async () => {
    const first = await run(true);
    assert.equal(first.rollouts, 2);
    assert.ok(existsSync(aggregate));
    const second = await run(false, { overwrite: true });
    assert.deepEqual([second.rollouts, second.failures, second.aggregate], [0, 2, []]);
    assert.equal(existsSync(aggregate), false, "the earlier run's aggregate described rows this run erased");
  });
});
