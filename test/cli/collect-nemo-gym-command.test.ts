import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gymnast } from '../support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gymnast-nemo-gym-command-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const input = join(dir, 'questions.jsonl');
const prompt = join(dir, 'prompt.yaml');
writeFileSync(input, [1, 2, 3, 4].map((a) => `${JSON.stringify({ question: `What is ${a}+2?`, expected_answer: String(a + 2) })}\n`).join(''));
writeFileSync(prompt, 'system: Be brief.\nuser: "{question}"\n');
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
/** The embedded model, kept short: the runs compare plans and keys, not answers. */
const model = ['--max-tokens', '8', '--seed', '1'];

let outputs = 0;
const newOutput = () => join(dir, `run-${outputs++}`, 'rollouts.jsonl');

// NeMo Gym's collector is configured by Hydra overrides named as its config's fields:
// 002 rollout_collection.py RolloutCollectionConfig (agent_name, input_jsonl_fpath, output_jsonl_fpath,
// limit, num_repeats, num_repeats_add_seed, resume_from_cache, prompt_config, num_samples_in_parallel,
// responses_create_params).
describe("gymnast collect takes NeMo Gym's ng_collect_rollouts command line (002 rollout_collection.py RolloutCollectionConfig)", () => {
  it("runs the README's command the same way written as NeMo Gym's overrides or as gymnast's flags", async () => {
    const [overridden, flagged] = [newOutput(), newOutput()];
    const nemoGym = await gymnast(
      'collect',
      '+agent_name=math',
      `+input_jsonl_fpath=${input}`,
      `+output_jsonl_fpath=${overridden}`,
      '+limit=3',
      '+num_repeats=2',
      '+num_samples_in_parallel=2',
      '+resume_from_cache=true',
      '+num_repeats_add_seed=true',
      `+prompt_config=${prompt}`,
      '+responses_create_params.temperature=0.6',
      ...model,
    );
    assert.equal(nemoGym.code, 0, nemoGym.stderr);
    const own = await gymnast(
      'collect',
      '--agent',
      'math',
      '--input',
      input,
      '--output',
      flagged,
      '--limit',
      '3',
      '--num-repeats',
      '2',
      '--concurrency',
      '2',
      '--resume',
      '--add-seed',
      '--prompt-config',
      prompt,
      '--set',
      'temperature=0.6',
      ...model,
    );
    assert.equal(own.code, 0, own.stderr);

    const plan = readFileSync(overridden.replace('.jsonl', '_materialized_inputs.jsonl'), 'utf8');
    assert.equal(plan, readFileSync(flagged.replace('.jsonl', '_materialized_inputs.jsonl'), 'utf8'));
    const planned = lines(overridden.replace('.jsonl', '_materialized_inputs.jsonl'));
    assert.deepEqual(
      planned.map((row) => `${row._ng_task_index}:${row._ng_rollout_index}`),
      ['0:0', '0:1', '1:0', '1:1', '2:0', '2:1'],
    );
    assert.deepEqual(planned[1], {
      question: 'What is 1+2?',
      expected_answer: '3',
      responses_create_params: {
        input: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'What is 1+2?' },
        ],
        temperature: 0.6,
        seed: 1,
      },
      agent_ref: { name: 'math' },
      _ng_task_index: 0,
      _ng_rollout_index: 1,
    });
    assert.deepEqual(
      lines(overridden).map((row) => row.reward),
      lines(flagged).map((row) => row.reward),
    );
  });

  it("takes ++ to replace a key given before, null as the key's default, and a dict of request fields", async () => {
    const output = newOutput();
    const run = await gymnast(
      'collect',
      '+agent_name=math',
      `+input_jsonl_fpath=${input}`,
      `+output_jsonl_fpath=${output}`,
      '+limit=3',
      '++limit=1',
      '+num_repeats=null',
      `+prompt_config=${prompt}`,
      '+responses_create_params={temperature: 0.5, max_output_tokens: 4}',
      ...model,
    );
    assert.equal(run.code, 0, run.stderr);
    const planned = lines(output.replace('.jsonl', '_materialized_inputs.jsonl'));
    assert.equal(planned.length, 1);
    assert.deepEqual(planned[0]!.responses_create_params, {
      input: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is 1+2?' },
      ],
      temperature: 0.5,
      max_output_tokens: 4,
    });
  });

  describe('refuses, naming the override, before anything is written', { concurrency: 4 }, () => {
    const cases: [string, string[], RegExp][] = [
      [
        'a key NeMo Gym does not have, with the one meant',
        ['+limt=3'],
        /^gymnast: config: \+limt=3: limt is not one of NeMo Gym's collection keys \(did you mean "limit"\?\); gymnast collect takes \+agent_name, /m,
      ],
      ['a key without +, as Hydra does', ['limit=3'], /limit=3: NeMo Gym's collector has no limit to change \(Hydra: "Could not override"\): write \+limit=3/],
      ['a key given twice with +', ['+limit=3', '+limit=2'], /\+limit=2: limit is already given .*: write \+\+limit=2 to replace it/],
      ['a key given as its flag too', ['+limit=3', '--limit', '3'], /\+limit=3: --limit is given too; give one of them/],
      [
        'a request field given by --set too',
        ['+responses_create_params.temperature=0.6', '--set', 'temperature=0.5'],
        /\+responses_create_params\.temperature=0\.6: --set temperature sets the same request field/,
      ],
      ['a value its flag refuses', ['+limit=many'], /\+limit=many: expected a number, got "many"/],
      ['text where NeMo Gym takes a boolean', ['+resume_from_cache=yes'], /\+resume_from_cache=yes: expected true or false, got "yes"/],
      ['request fields that are not a mapping', ['+responses_create_params=0.6'], /expected a mapping of request fields/],
      ['a Hydra sweep', ['+num_repeats=1,2'], /\+num_repeats=1,2: a comma-separated value is a Hydra sweep/],
      [
        'a NeMo Gym config without a split',
        ['+config_paths=[env.yaml]'],
        /\+config_paths=\[env\.yaml\]: gymnast starts a config's servers only to collect a split/,
      ],
      ['a word that is neither a flag nor an override', ['extra'], /^gymnast: config: extra: expected a flag or a NeMo Gym override/m],
    ];
    for (const [name, args, message] of cases) {
      it(name, async () => {
        const output = newOutput();
        const run = await gymnast('collect', '--input', input, '--output', output, '--agent', 'math', '--prompt-config', prompt, ...args);
        assert.equal(run.code, 1, run.stderr);
        assert.match(run.stderr, message);
        assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
        assert.equal(existsSync(join(output, '..')), false, 'nothing written');
      });
    }
  });
});
