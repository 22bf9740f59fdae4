import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gymnast } from '../support/run-cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const config = join(root, 'examples/nemo-gym-config.yaml');
const dir = mkdtempSync(join(tmpdir(), 'gymnast-split-reuse-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

// NeMo Gym's end-to-end collection: `+split`, `+reuse_existing_data_preparation` (002 rollout_collection.py
// E2ERolloutCollectionConfig), its data prepared under the output's name without its extension.
describe("--split with NeMo Gym's end-to-end keys (002 rollout_collection.py E2ERolloutCollectionConfig)", () => {
  it('writes into the folder NeMo Gym prepares its data in, and reuses a prepared dataset with reuse_existing_data_preparation', async () => {
    const folder = join(dir, 'e2e');
    const prepared = join(folder, 'preprocessed_datasets', 'arithmetic_agent_example.jsonl');
    mkdirSync(join(folder, 'preprocessed_datasets'), { recursive: true });
    // One row prepared earlier: reused as it is, not collated again from the config's 16.
    const row = {
      responses_create_params: { input: [{ role: 'user', content: 'What is 2+3?' }] },
      problem: '2+3',
      answer: 5,
      agent_ref: { type: 'responses_api_agents', name: 'arithmetic_agent' },
    };
    writeFileSync(prepared, `${JSON.stringify(row)}\n`);
    const run = await gymnast(
      'collect',
      `+config_paths=[${config}]`,
      '+split=example',
      `+output_jsonl_fpath=${folder}.jsonl`,
      '+reuse_existing_data_preparation=true',
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /preprocessed_datasets\/arithmetic_agent_example\.jsonl is prepared already: reused/);
    assert.equal(readFileSync(prepared, 'utf8'), `${JSON.stringify(row)}\n`);
    assert.deepEqual(
      rows(join(folder, 'arithmetic_agent_example.jsonl')).map((result) => result.problem),
      ['2+3', '2+3'],
      "the reused row, the config's num_repeats 2",
    );
    assert.equal(existsSync(`${folder}.jsonl`), false);
  });

  it('refuses --reuse-data-preparation without --split', async () => {
    const run = await gymnast(
      'collect',
      '--input',
      join(root, 'examples/arithmetic.jsonl'),
      '--output',
      join(dir, 'x', 'out.jsonl'),
      '--reuse-data-preparation',
    );
    assert.equal(run.code, 1);
    assert.match(run.stderr, /--reuse-data-preparation reuses the datasets --split prepared/);
  });
});
