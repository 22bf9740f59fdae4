import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { suiteServer } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';
import { gymnast } from '../support/run-cli.js';

const input = fileURLToPath(new URL('../../examples/arithmetic.jsonl', import.meta.url));

describe('collect --policy openai (a server that returns text and usage, no token ids)', () => {
  const server = suiteServer();

  it("records the server's usage, marks the rows evaluation-only, and health gives them their own verdict: collect exits 0", async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-openai-')), 'rollouts.jsonl');
    const collected = await gymnast(
      'collect',
      '--input',
      input,
      '--output',
      output,
      '--limit',
      '4',
      '--policy',
      'openai',
      '--base-url',
      server().url,
      '--tokenizer',
      qwen3Directory,
    );
    assert.equal(collected.code, 0, collected.stderr);
    assert.match(collected.stderr, /\[collect\] health: 4 rollouts: 0 healthy, 0 warning, 0 unhealthy, 4 evaluation-only, 0 failed; /);

    const rows = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(rows.length, 4);
    for (const row of rows) {
      assert.equal(row.evaluation_only, true);
      assert.equal(row.has_training_tokens, false);
      // The server counts the answer's tokens and the end-of-turn token it stopped on; the text alone,
      // re-tokenized here, is one token short: the turns must say what the server reported.
      const answers = row.messages.filter((message: { role: string }) => message.role === 'assistant');
      row.turns.forEach((turn: { generated_tokens: number }, i: number) => assert.equal(turn.generated_tokens, answers[i].token_ids.length + 1));
      const generated = row.turns.reduce((sum: number, turn: { generated_tokens: number }) => sum + turn.generated_tokens, 0);
      assert.equal(row.response.usage.output_tokens, generated);
      assert.equal(row.response.usage.total_tokens, row.response.usage.input_tokens + generated);
    }

    const checked = await gymnast('health', output);
    assert.equal(checked.code, 0, checked.stderr);
    assert.match(checked.stdout + checked.stderr, /4 evaluation-only/);

    // Evaluation-only is a verdict for rows with nothing wrong: a row whose usage disagrees with its turns is still unhealthy.
    rows[0].response.usage.output_tokens = 0;
    writeFileSync(output, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const broken = await gymnast('health', output);
    assert.equal(broken.code, 1);
    assert.match(broken.stdout + broken.stderr, /4 rollouts: 0 healthy, 0 warning, 1 unhealthy, 3 evaluation-only, 0 failed \(usage-mismatch 2\)/);

    const exported = await gymnast(
      'export',
      '--input',
      output,
      '--format',
      'nemo-rl',
      '--output',
      join(mkdtempSync(join(tmpdir(), 'gymnast-openai-')), 'train.jsonl'),
    );
    assert.equal(exported.code, 1);
    assert.match(exported.stderr, /rollouts\.jsonl:1: an evaluation-only rollout \(evaluation_only: true\): its policy returned text without token ids/);
  });
});
