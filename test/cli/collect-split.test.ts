import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gymnast, gymnastIn } from '../support/run-cli.js';
import { fileURLToPath } from 'node:url';
import { InferenceServer } from '../../src/testing/index.js';
import { qwen3Directory, qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const config = join(root, 'examples/nemo-gym-config.yaml');
const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('gymnast collect --config X.yaml --split (NeMo Gym end-to-end mode)', () => {
  it("starts the config's servers, collects each dataset of the split through its agent's /run, one output per dataset, and stops them", async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-split-')), 'e2e');
    const result = await gymnast('collect', '--config', config, '--split', 'example', '--output', output);
    assert.equal(result.code, 0, result.stderr);
    const collected = rows(join(output, 'arithmetic_agent_example.jsonl'));
    assert.equal(collected.length, 16 * 2, 'every row of the dataset, num_repeats 2 from the config');
    assert.equal(new Set(collected.map((row) => `${String(row._ng_task_index)}:${String(row._ng_rollout_index)}`)).size, collected.length);
    for (const row of collected) {
      assert.deepEqual(
        row.agent_ref,
        { type: 'responses_api_agents', name: 'arithmetic_agent' },
        'the agent instance is stamped as agent_ref, as NeMo Gym collates',
      );
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

  it("reads a relative jsonl_fpath from the working directory, as NeMo Gym does, not from the config's folder", async () => {
    const gym = mkdtempSync(join(tmpdir(), 'gymnast-split-cwd-'));
    mkdirSync(join(gym, 'data'));
    mkdirSync(join(gym, 'configs'));
    writeFileSync(join(gym, 'data', 'rows.jsonl'), readFileSync(join(root, 'examples/arithmetic.jsonl'), 'utf8').split('\n').slice(0, 2).join('\n'));
    writeFileSync(
      join(gym, 'configs', 'arithmetic.yaml'),
      readFileSync(config, 'utf8').replace('jsonl_fpath: examples/arithmetic.jsonl', 'jsonl_fpath: data/rows.jsonl'),
    );
    const result = await gymnastIn({ cwd: gym }, 'collect', '--config', 'configs/arithmetic.yaml', '--split', 'example', '--output', 'out');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(rows(join(gym, 'out', 'arithmetic_agent_example.jsonl')).length, 2 * 2);
    const elsewhere = await gymnastIn(
      { cwd: join(gym, 'configs') },
      'collect',
      '--config',
      'arithmetic.yaml',
      '--split',
      'example',
      '--output',
      join(gym, 'out2'),
    );
    assert.equal(elsewhere.code, 1);
    assert.match(
      elsewhere.stderr,
      /arithmetic\.yaml: arithmetic_agent\.responses_api_agents\.simple_agent\.datasets\.0\.jsonl_fpath: an existing JSONL file: a relative path is found under the working directory \(\S+configs\), as NeMo Gym finds it, and \S+configs\/data\/rows\.jsonl is not there\n/,
    );
  });

  it('refuses what it cannot run, before starting anything', async () => {
    const cases: [string[], RegExp][] = [
      [['--split', 'example', '--output', 'x'], /--split needs --config X\.yaml/],
      [['--config', config, '--split', 'everything', '--output', 'x'], /--split.*expected train, validation, example, benchmark, got "everything"/],
      [
        ['--config', config, '--split', 'train', '--output', join(tmpdir(), 'gymnast-split-none')],
        /an agent with a train dataset; the config's datasets are example/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await gymnast('collect', ...args);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /\n\s+at /);
    }
  });
});

describe("gymnast collect --split on NeMo Gym's own configs (mcqa.yaml and vllm_model.yaml as NeMo Gym ships them)", () => {
  /** A Gym checkout's layout (the datasets where mcqa.yaml names them), and a Hugging Face cache with the model's tokenizer. */
  function gymCheckout(): { gym: string; hfHome: string } {
    const gym = mkdtempSync(join(tmpdir(), 'gymnast-gym-'));
    mkdirSync(join(gym, 'resources_servers', 'mcqa', 'data'), { recursive: true });
    for (const file of ['example.jsonl', 'example_with_template_metadata.jsonl'])
      copyFileSync(join(root, 'test/fixtures/nemo-gym/mcqa', file), join(gym, 'resources_servers', 'mcqa', 'data', file));
    const snapshot = join(gym, 'hf', 'hub', 'models--Qwen--Qwen3-0.6B', 'snapshots', 'c1a5e0');
    mkdirSync(snapshot, { recursive: true });
    mkdirSync(join(gym, 'hf', 'hub', 'models--Qwen--Qwen3-0.6B', 'refs'));
    writeFileSync(join(gym, 'hf', 'hub', 'models--Qwen--Qwen3-0.6B', 'refs', 'main'), 'c1a5e0');
    for (const file of ['tokenizer.json', 'tokenizer_config.json']) symlinkSync(join(qwen3Directory, file), join(snapshot, file));
    return { gym, hfHome: join(gym, 'hf') };
  }

  it("runs them with their own keys alone, and records and checks the policy that sampled the rows (the agent's vLLM), not the flags' default", async () => {
    const server = new InferenceServer({
      tokenizer: await qwen3Tokenizer(),
      template: await qwen3Template(),
      model: 'Qwen/Qwen3-0.6B',
      maxModelLen: 4096,
      respond: ({ seed }) => `Thinking it over. \\boxed{${'ABCD'[seed % 4]}}`,
    });
    const url = await server.start();
    try {
      const { gym, hfHome } = gymCheckout();
      const configs = join(root, 'test/fixtures/nemo-gym/configs');
      writeFileSync(
        join(gym, 'env.yaml'),
        `config_paths: [${join(configs, 'vllm_model.yaml')}, ${join(configs, 'mcqa.yaml')}]\nhead_server: {port: 0}\npolicy_base_url: ${url}/v1\npolicy_api_key: EMPTY\npolicy_model_name: Qwen/Qwen3-0.6B\n`,
      );
      const result = await gymnastIn({ cwd: gym, env: { HF_HOME: hfHome } }, 'collect', '--config', 'env.yaml', '--split', 'example', '--output', 'results');
      assert.equal(result.code, 0, result.stderr);
      for (const name of ['mcqa_simple_agent_example', 'mcqa_simple_agent_example_with_template_metadata']) {
        const collected = rows(join(gym, 'results', `${name}.jsonl`));
        assert.equal(collected.length, 5);
        for (const row of collected) assert.equal(row.has_training_tokens, true);
        const identity = JSON.parse(readFileSync(join(gym, 'results', `${name}_run.json`), 'utf8')) as { config: Record<string, unknown> };
        assert.deepEqual(
          { policy: identity.config.policy, max_seq_len: identity.config.max_seq_len, max_turns: identity.config.max_turns },
          { policy: 'vllm-chat', max_seq_len: 4096, max_turns: 8 },
          "the agent's policy and limits",
        );
        const health = JSON.parse(readFileSync(join(gym, 'results', `${name}_health.json`), 'utf8')) as {
          rollouts: { healthy: number };
          checks: Record<string, unknown>;
          skipped: unknown[];
        };
        assert.deepEqual(
          { checks: health.checks, skipped: health.skipped, healthy: health.rollouts.healthy },
          { checks: {}, skipped: [], healthy: 5 },
          "decoded with the agent's tokenizer, every rollout is healthy",
        );
      }
      assert.ok(
        server.requests.some((request) => request.path === '/v1/chat/completions'),
        'the rows were sampled by the vLLM the config names',
      );
      assert.match(
        result.stderr,
        /\[collect\] mcqa: gymnast's TypeScript port of NeMo Gym's resources_servers\/mcqa runs in-process, not NeMo Gym's own app\.py; --nemo-gym DIR runs NeMo Gym's own from a Gym checkout\n/,
      );

      const real = await gymnastIn(
        { cwd: gym, env: { HF_HOME: hfHome } },
        'collect',
        '--config',
        'env.yaml',
        '--split',
        'example',
        '--output',
        'real',
        '--nemo-gym',
        join(gym, 'no-checkout'),
      );
      assert.equal(real.code, 1);
      assert.match(
        real.stderr,
        /^gymnast: config: env\.yaml: mcqa\.resources_servers\.mcqa\.entrypoint: a file in \S+no-checkout\/resources_servers\/mcqa to run, as NeMo Gym runs it; \S+app\.py is not there\n/,
      );
      const stray = await gymnastIn(
        { cwd: gym },
        'collect',
        '--input',
        'resources_servers/mcqa/data/example.jsonl',
        '--output',
        'plain',
        '--agent',
        'arithmetic',
        '--nemo-gym',
        gym,
      );
      assert.equal(stray.code, 1);
      assert.match(stray.stderr, /--nemo-gym runs the servers of a NeMo Gym config: it needs --config X\.yaml --split NAME/);
    } finally {
      await server.close();
    }
  });
});
