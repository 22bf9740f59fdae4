import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gymnast } from '../support/run-cli.js';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const config = join(root, 'examples/nemo-gym-config.yaml');
const rows = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

describe('gymnast collect --config X.yaml --split (NeMo Gym end-to-end mode)', () => {
  it("starts the config's servers, collects each dataset of the split through its agent's /run, one output per dataset, and stops them", async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-split-')), 'e2e');
    const result = await gymnast('collect', '--config', config, '--split', 'example', '--output', output);
    assert.equal(result.code, 0, result.stderr);
    const collected = rows(join(output, 'arithmetic_agent_example.jsonl'));
    assert.equal(collected.length, 16 * 2, 'every row of the dataset, num_repeats 2 from the config');
    assert.equal(new Set(collected.map((row) => `${String(row._ng_task_index)}:${String(row._ng_rollout_index)}`)).size, collected.length);
    for (const row of collected) {
      assert.deepEqual(row.agent_ref, { type: 'responses_api_agents', name: 'arithmetic_agent' }, 'the agent instance is stamped as agent_ref, as NeMo Gym collates');
      assert.equal(row.has_training_tokens, true, "the agent server's rows keep gymnast's exact tokens");
      assert.equal(typeof row.reward, 'number');
    }
    assert.ok(existsSync(join(output, 'preprocessed_datasets', 'arithmetic_agent_example.jsonl')), 'the collated dataset is kept, as NeMo Gym keeps it');
    assert.match(result.stderr, /computed by its server's \/aggregate_metrics/);

    const again = await gymnast('collect', '--config', config, '--split', 'example', '--output', output);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^gymnast: output-exists: --output \S+arithmetic_agent_example\.jsonl already holds an earlier run's rows \(32 rows in .*\)/);
    assert.doesNotMatch(again.stderr, /\[collect\] example dataset/, 'refused before any dataset is collected (or a server started)');
    assert.deepEqual(rows(join(output, 'arithmetic_agent_example.jsonl')), collected);
    const resumed = await gymnast('collect', '--config', config, '--split', 'example', '--output', output, '--resume');
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /resuming: 32 done before/, '--resume goes to every dataset');
  });

  it('refuses what it cannot run, before starting anything', async () => {
    const cases: [string[], RegExp][] = [
      [['--split', 'example', '--output', 'x'], /--split needs --config X\.yaml/],
      [['--config', config, '--split', 'everything', '--output', 'x'], /--split.*expected train, validation, example, benchmark, got "everything"/],
      [['--config', config, '--split', 'train', '--output', join(tmpdir(), 'gymnast-split-none')], /an agent with a train dataset; the config's datasets are example/],
    ];
    for (const [args, message] of cases) {
      const result = await gymnast('collect', ...args);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /\n\s+at /);
    }
  });
});
