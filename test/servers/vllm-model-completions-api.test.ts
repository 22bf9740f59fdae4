import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigFileError } from '../../src/core/errors/config-file-error.js';
import { startConfigRun } from '../../src/servers/config/config-run.js';
import { planServers, type ServedModelPlan } from '../../src/servers/config/plan-servers.js';
import { loadServerConfig } from '../../src/servers/config/server-config.js';
import { InferenceServer } from '../../src/testing/index.js';
import { qwen3Directory, qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const configs = new URL('../fixtures/nemo-gym/configs/', import.meta.url).pathname;
const examples = new URL('../../examples/arithmetic.jsonl', import.meta.url).pathname;

/** One of NeMo Gym's own vllm_model configs, its policy_* values given as env.yaml gives them, `extra` beside it, and an agent sampling it. */
function configWith(modelYaml: string, baseUrl: string, extra = '') {
  const file = join(mkdtempSync(join(tmpdir(), 'gymnast-completions-api-')), 'env.yaml');
  writeFileSync(
    file,
    `config_paths: [${JSON.stringify(join(configs, modelYaml))}]
head_server: {port: 0}
policy_base_url: ${baseUrl}/v1
policy_api_key: EMPTY
policy_model_name: qwen3-served
${extra}arithmetic: {resources_servers: {arithmetic: {}}}
arithmetic_agent:
  responses_api_agents:
    simple_agent:
      resources_server: {type: resources_servers, name: arithmetic}
      model_server: {type: responses_api_models, name: policy_model}
      max_tokens: 16
`,
  );
  return loadServerConfig(file);
}

const servedModel = (modelYaml: string, extra?: string) =>
  planServers(configWith(modelYaml, 'http://127.0.0.1:9', extra)).find((plan): plan is ServedModelPlan => plan.kind === 'served-model')!;

describe("a vllm_model's use_completions_api (NeMo Gym's vllm_model_completions.yaml) samples with vllm-completions", () => {
  it("picks gymnast's policy by NeMo Gym's key: use_completions_api: true is vllm-completions, else vllm-chat", () => {
    assert.equal(servedModel('vllm_model_completions.yaml').policy, 'vllm-completions');
    assert.equal(servedModel('vllm_model_for_training.yaml').policy, 'vllm-chat');
    assert.equal(servedModel('vllm_model.yaml').policy, 'vllm-chat');
  });

  it("calls the server's /v1/completions with the prompt as token ids, never its chat endpoint, and says how the prompt differs from NeMo Gym's raw one", async () => {
    const server = new InferenceServer({
      tokenizer: await qwen3Tokenizer(),
      template: await qwen3Template(),
      model: 'qwen3-served',
      root: qwen3Directory,
      respond: () => '87',
    });
    const url = await server.start();
    const notices: string[] = [];
    const run = await startConfigRun(configWith('vllm_model_completions.yaml', url), { onNotice: (message) => notices.push(message) });
    try {
      const agent = run.servers.find((instance) => instance.name === 'arithmetic_agent')!;
      const [line] = readFileSync(examples, 'utf8').split('\n');
      const row = {
        ...(JSON.parse(line!) as object),
        agent_ref: { type: 'responses_api_agents', name: 'arithmetic_agent' },
        _ng_task_index: 0,
        _ng_rollout_index: 0,
      };
      const response = await fetch(`${agent.url}/run`, { method: 'POST', body: JSON.stringify(row), headers: { 'content-type': 'application/json' } });
      const result = (await response.json()) as { has_training_tokens?: boolean; _ng_failure_class?: string; reward?: number };
      assert.equal(result._ng_failure_class, undefined, JSON.stringify(result).slice(0, 400));
      assert.equal(result.has_training_tokens, true);
      assert.equal(result.reward, 1);
      assert.equal(run.episodes.get('arithmetic_agent')!.policy.name, 'vllm-completions');
      const sampled = server.requests.filter((request) => request.path !== '/v1/models').map((request) => request.path);
      assert.deepEqual([...new Set(sampled)], ['/v1/completions']);
    } finally {
      await run.close();
      await server.close();
    }
    assert.ok(
      notices.includes(
        "policy_model: use_completions_api without render_chat_template: NeMo Gym's vllm_model would send the system and user text as the prompt, without the chat template; gymnast's vllm-completions renders the model's chat template, as for every prompt (render_chat_template: true has NeMo Gym render it too)",
      ),
      notices.join('\n'),
    );
  });

  it('render_chat_template: true renders the prompt as gymnast does: nothing to say', async () => {
    const plan = servedModel('vllm_model_completions.yaml', 'policy_model: {responses_api_models: {vllm_model: {render_chat_template: true}}}\n');
    assert.deepEqual({ policy: plan.policy, rawPrompt: plan.rawPrompt }, { policy: 'vllm-completions', rawPrompt: undefined });
  });

  it('refuses a gymnast_policy that contradicts it, naming both keys', () => {
    assert.throws(
      () => servedModel('vllm_model_completions.yaml', 'policy_model: {responses_api_models: {vllm_model: {gymnast_policy: vllm-chat}}}\n'),
      (error: unknown) =>
        error instanceof ConfigFileError &&
        /env\.yaml: policy_model\.responses_api_models\.vllm_model\.gymnast_policy: vllm-completions or left out: use_completions_api: true calls \/v1\/completions, got vllm-chat$/.test(
          error.message,
        ),
    );
  });
});
