import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { collect } from '../../src/collect/collect-run.js';
import { InvalidInputError } from '../../src/collect/row-error.js';
import { SamplingParams } from '../../src/core/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';

const dir = mkdtempSync(join(tmpdir(), 'gymnast-stop-strings-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const tokenizer = new CharTokenizer();
const row = (fields: Record<string, unknown>) =>
  JSON.stringify({ responses_create_params: { input: 'what is 1+2?' }, agent_ref: { name: 'math' }, expected_answer: '3', ...fields });

let runs = 0;
async function collectRows(lines: string[]) {
  const input = join(dir, `in-${runs}.jsonl`);
  const output = join(dir, `out-${runs++}.jsonl`);
  writeFileSync(input, `${lines.join('\n')}\n`);
  const policy = new ScriptedPolicy({ tokenizer, script: [{ text: '3' }] });
  await collect({
    input,
    output,
    concurrency: 1,
    policy,
    renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
    maxSeqLen: 512,
    maxTurns: 1,
    sampling: SamplingParams.parse({ max_tokens: 8 }),
  });
  return {
    requests: policy.requests,
    rows: readFileSync(output, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text) as Record<string, unknown>),
  };
}

// NeMo RL hands each sample's own stop strings to generation (000 rollouts.py generate_responses:
// `generation_input_data["stop_strings"] = batch["stop_strings"]`, None for a sample without).
describe("a row's stop_strings, NeMo RL's per-sample stop strings (000 rollouts.py generate_responses)", () => {
  it('end the generation of its first turn, and rows without any keep none', async () => {
    const { requests, rows } = await collectRows([row({ stop_strings: ['</answer>', '\n\n'] }), row({ stop_strings: null }), row({})]);
    assert.deepEqual(
      requests.map((request) => request.stop_strings),
      [['</answer>', '\n\n'], [], []],
    );
    // The row keeps the field as it came; the environment's task data does not get it.
    assert.deepEqual(
      rows.map((result) => result.stop_strings),
      [['</answer>', '\n\n'], null, undefined],
    );
  });

  it('are refused before any work when they are not a list of text, naming the line and field', async () => {
    await assert.rejects(collectRows([row({}), row({ stop_strings: '</answer>' }), row({ stop_strings: ['ok', 5] })]), (error: unknown) => {
      assert.ok(error instanceof InvalidInputError);
      assert.match(error.message, /in-\d+\.jsonl:2: stop_strings: expected a list, got "<\/answer>"/);
      assert.match(error.message, /in-\d+\.jsonl:3: stop_strings\.1: expected text, got 5/);
      return true;
    });
  });
});
