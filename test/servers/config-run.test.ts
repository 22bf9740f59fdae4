import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { ConfigFileError } from '../../src/core/errors/config-file-error.js';
import { ServerStartError } from '../../src/core/errors/server-start-error.js';
import { startConfigRun, type ConfigRun } from '../../src/servers/config/config-run.js';
import { planServers, type AgentPlan } from '../../src/servers/config/plan-servers.js';
import { parseServerConfig } from '../../src/servers/config/server-config.js';
import { isProcessAlive } from '../../src/util/process-alive.js';

const examples = new URL('../../examples/arithmetic.jsonl', import.meta.url).pathname;
const sessionRows = new URL('../fixtures/nemo-gym/example_session_state_mgmt/example.jsonl', import.meta.url).pathname;

/** A stand-in for any server gymnast spawns: answers who it is and what gymnast told it. */
const EXTERNAL_SERVER = `require('node:http').createServer((_, response) => response.end(JSON.stringify({ name: process.env.NEMO_GYM_CONFIG_PATH, port: process.env.PORT, config: process.env.NEMO_GYM_CONFIG_DICT.length }))).listen(Number(process.env.PORT), process.env.HOST)`;

/** The shape of NeMo Gym's e2e configs: a model, resources servers, an agent wired to them, and a process gymnast runs. */
const CONFIG = `
head_server: {host: 127.0.0.1, port: 0}
policy_model_name: gymnast-tiny-arith
policy_model:
  responses_api_models:
    gymnast_embedded: {}
session_state:
  resources_servers:
    example_session_state_mgmt:
      entrypoint: app.py
      domain: other
arithmetic:
  resources_servers:
    arithmetic: {domain: math}
arithmetic_simple_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.py
      resources_server: {type: resources_servers, name: arithmetic}
      model_server: {type: responses_api_models, name: policy_model}
      max_tokens: 24
      max_turns: 4
      seed: 7
      datasets:
      - {name: example, type: example, jsonl_fpath: ${JSON.stringify(examples)}}
session_agent:
  responses_api_agents:
    simple_agent:
      resources_server: {type: resources_servers, name: session_state}
      model_server: {type: responses_api_models, name: policy_model}
      max_tokens: 24
      max_turns: 2
sidecar:
  resources_servers:
    my_python_env:
      command: [${JSON.stringify(process.execPath)}, -e, ${JSON.stringify(EXTERNAL_SERVER)}]
      description: served as \${policy_model_name}
`;

const getJson = async (url: string) => {
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  return response.json() as Promise<unknown>;
};

describe('a config run: every server of a NeMo Gym-shaped config, and the head server listing them', () => {
  let run: ConfigRun;
  const output: string[] = [];
  before(async () => {
    run = await startConfigRun(parseServerConfig(CONFIG, 'e2e.yaml'), { output: (line) => output.push(line) });
  });
  after(() => run.close());

  it('lists every server with a URL that answers', async () => {
    const instances = (await getJson(`${run.headUrl}/server_instances`)) as { name: string; type: string; impl: string; url: string; pid?: number }[];
    assert.deepEqual(instances.map(({ name, type, impl }) => [name, type, impl]).sort(), [
      ['arithmetic', 'resources_servers', 'arithmetic'],
      ['arithmetic_simple_agent', 'responses_api_agents', 'simple_agent'],
      ['policy_model', 'responses_api_models', 'gymnast_embedded'],
      ['session_agent', 'responses_api_agents', 'simple_agent'],
      ['session_state', 'resources_servers', 'example_session_state_mgmt'],
      ['sidecar', 'resources_servers', 'my_python_env'],
    ]);
    for (const instance of instances) assert.match(instance.url, /^http:\/\/127\.0\.0\.1:\d+/);
    const byName = Object.fromEntries(instances.map((instance) => [instance.name, instance]));
    assert.deepEqual(await getJson(`${byName.sidecar!.url}/`), { name: 'sidecar', port: new URL(byName.sidecar!.url).port, config: (await getJson(`${run.headUrl}/global_config_dict_yaml`) as string).length });
    assert.equal(((await getJson(`${byName.policy_model!.url}/models`)) as { data: { id: string }[] }).data[0]!.id, 'gymnast-tiny-arith');
    const seeded = await fetch(`${byName.session_state!.url}/seed_session`, { method: 'POST', body: JSON.stringify({ responses_create_params: { input: [] }, initial_count: 2 }), headers: { 'content-type': 'application/json' } });
    assert.equal(seeded.status, 200);
    assert.deepEqual(await getJson(`${run.headUrl}/`), { status: 'ok' });
  });

  it('publishes the resolved config as YAML in a JSON string, actual hosts and ports filled in', async () => {
    const text = await getJson(`${run.headUrl}/global_config_dict_yaml`);
    assert.equal(typeof text, 'string');
    const config = parse(text as string) as Record<string, Record<string, Record<string, Record<string, unknown>>>>;
    const urls = Object.fromEntries(run.servers.map((server) => [server.name, server.url]));
    for (const [name, type, impl] of [['arithmetic', 'resources_servers', 'arithmetic'], ['sidecar', 'resources_servers', 'my_python_env'], ['arithmetic_simple_agent', 'responses_api_agents', 'simple_agent']] as const) {
      const { host, port } = config[name]![type]![impl]!;
      assert.equal(`http://${host}:${port}`, urls[name]);
    }
    assert.equal(config.sidecar!.resources_servers!.my_python_env!.description, 'served as gymnast-tiny-arith', '${...} interpolated');
    assert.equal((config.head_server as unknown as { port: number }).port, Number(new URL(run.headUrl).port));
  });

  it("runs a row through the agent's /run on the embedded model", async () => {
    const agent = run.servers.find((server) => server.name === 'arithmetic_simple_agent')!;
    const [line] = readFileSync(examples, 'utf8').split('\n');
    const row = { ...(JSON.parse(line!) as object), agent_ref: { type: 'responses_api_agents', name: 'arithmetic_simple_agent' }, _ng_task_index: 0, _ng_rollout_index: 0 };
    const response = await fetch(`${agent.url}/run`, { method: 'POST', body: JSON.stringify(row), headers: { 'content-type': 'application/json' } });
    assert.equal(response.status, 200);
    const result = (await response.json()) as { reward?: number; has_training_tokens?: boolean; _ng_failure_class?: string };
    assert.equal(result._ng_failure_class, undefined, JSON.stringify(result).slice(0, 400));
    assert.equal(typeof result.reward, 'number');
    assert.equal(result.has_training_tokens, true);
  });

  it("drives a ported example over HTTP from an agent wired to it: the row's session seeded, verified, and the verifier's fields on the row", async () => {
    const agent = run.servers.find((server) => server.name === 'session_agent')!;
    const [line] = readFileSync(sessionRows, 'utf8').split('\n');
    const row = { ...(JSON.parse(line!) as object), agent_ref: { type: 'responses_api_agents', name: 'session_agent' }, _ng_task_index: 0, _ng_rollout_index: 0 };
    const response = await fetch(`${agent.url}/run`, { method: 'POST', body: JSON.stringify(row), headers: { 'content-type': 'application/json' } });
    assert.equal(response.status, 200);
    const result = (await response.json()) as { reward?: number; has_training_tokens?: boolean; _ng_failure_class?: string; expected_count?: number };
    assert.equal(result._ng_failure_class, undefined, JSON.stringify(result).slice(0, 600));
    assert.equal(result.reward, 0, 'the embedded model never calls the counter tools, so the count stays wrong');
    assert.equal(result.expected_count, 6);
    assert.equal(result.has_training_tokens, true);
  });

  it('prefixes what an external server writes with its name', async () => {
    const noisy = await startConfigRun(parseServerConfig(`
head_server: {port: 0}
talker:
  resources_servers:
    talker:
      command: [${JSON.stringify(process.execPath)}, -e, ${JSON.stringify(`console.log('listening'); ${EXTERNAL_SERVER}`)}]
`, 'talk.yaml'), { output: (line) => output.push(line) });
    await noisy.close();
    assert.ok(output.includes('[talker] listening'), output.join('\n'));
  });

  it('stops every server on close, the external process included', async () => {
    const own = await startConfigRun(parseServerConfig(CONFIG, 'e2e.yaml'), { output: () => undefined });
    const pid = own.servers.find((server) => server.name === 'sidecar')!.pid!;
    assert.ok(isProcessAlive(pid));
    await own.close();
    assert.equal(isProcessAlive(pid), false);
    await assert.rejects(fetch(`${own.headUrl}/`));
    for (const server of own.servers.filter((server) => server.type !== 'responses_api_models')) await assert.rejects(fetch(`${server.url}/`), server.name);
  });
});

describe('a config run that cannot start', () => {
  it('stops the servers already started and names the one that failed', async () => {
    const config = parseServerConfig(`
head_server: {port: 0}
arithmetic:
  resources_servers:
    arithmetic: {port: 0}
broken:
  resources_servers:
    broken:
      command: [${JSON.stringify(process.execPath)}, -e, "console.error('no such module: app'); process.exit(3)"]
`, 'broken.yaml');
    const error = await startConfigRun(config, { output: () => undefined }).then(() => undefined, (caught: unknown) => caught);
    assert.ok(error instanceof ServerStartError, String(error));
    assert.equal(error.server, 'broken');
    assert.match(error.message, /server "broken": exited with code 3 before answering GET http:\/\/127\.0\.0\.1:\d+\/; its last output:\n {2}no such module: app/);
  });

  it('names a command that cannot be run', async () => {
    const config = parseServerConfig('head_server: {port: 0}\nmissing:\n  resources_servers:\n    missing:\n      command: [/no/such/program, --port, "{port}"]\n', 'missing.yaml');
    await assert.rejects(startConfigRun(config, { output: () => undefined }), (error: unknown) => error instanceof ServerStartError && /^server "missing": could not run \/no\/such\/program: spawn \/no\/such\/program ENOENT$/.test(error.message));
  });

  it('gives up on a server that never answers, at its deadline', async () => {
    const config = parseServerConfig(`
head_server: {port: 0}
silent:
  resources_servers:
    silent:
      command: [${JSON.stringify(process.execPath)}, -e, "setInterval(() => {}, 1000)"]
      startup_timeout_seconds: 0.5
`, 'silent.yaml');
    await assert.rejects(startConfigRun(config, { output: () => undefined }), (error: unknown) => error instanceof ServerStartError && /server "silent": did not answer GET .* within 0\.5 s/.test(error.message));
  });
});

describe('config files gymnast refuses, naming the file, the YAML path and what was expected', () => {
  const refused = (text: string) => {
    try {
      parseServerConfig(text, 'bad.yaml', {});
    } catch (error) {
      assert.ok(error instanceof ConfigFileError, String(error));
      return error.message;
    }
    assert.fail('accepted');
  };
  const refusedToRun = async (text: string) => {
    const error = await startConfigRun(parseServerConfig(text, 'bad.yaml', {})).then(() => undefined, (caught: unknown) => caught);
    assert.ok(error instanceof ConfigFileError, String(error));
    return error.message;
  };

  it('an unknown server type, with a suggestion', () => {
    assert.equal(refused('env:\n  resource_servers:\n    arithmetic: {}\n'), 'bad.yaml: env.resource_servers: a server type: one of responses_api_models, resources_servers, responses_api_agents (did you mean "resources_servers"?)');
  });

  it('a ref to an instance that is not defined, with a suggestion', () => {
    const message = refused(`
arithmetic: {resources_servers: {arithmetic: {}}}
policy_model: {responses_api_models: {gymnast_embedded: {}}}
agent:
  responses_api_agents:
    simple_agent:
      resources_server: {type: resources_servers, name: arithmatic}
      model_server: {type: responses_api_models, name: policy_model}
`);
    assert.equal(message, 'bad.yaml: agent.responses_api_agents.simple_agent.resources_server.name: the name of a defined resources_servers instance (arithmetic), got "arithmatic" (did you mean "arithmetic"?)');
  });

  it('a missing required field', () => {
    const message = refused(`
agent:
  responses_api_agents:
    simple_agent:
      datasets:
      - {name: train, type: train, license: MIT}
`);
    assert.match(message, /^bad\.yaml: agent\.responses_api_agents\.simple_agent\.datasets\.0\.jsonl_fpath: missing \(expected text\)$/);
  });

  it('invalid YAML, with where', () => {
    assert.match(refused('agent:\n  responses_api_agents: {simple_agent: [\n'), /^bad\.yaml: line \d+, column \d+: valid YAML: /);
  });

  it('an interpolation of a key that is not there, and a ??? left in', () => {
    const message = refused('policy_model:\n  responses_api_models:\n    vllm_model: {base_url: "${policy_base_url}", model: ???}\n');
    assert.equal(message, [
      'bad.yaml: policy_model.responses_api_models.vllm_model.base_url: a key "policy_base_url" for ${policy_base_url} to read; the config has none',
      'bad.yaml: policy_model.responses_api_models.vllm_model.model: a value (??? marks one that must be given)',
    ].join('\n'));
  });

  it('interpolates top-level keys, keeping their types', () => {
    const config = parseServerConfig('policy_base_url: http://127.0.0.1:8000/v1\nport_value: 9000\npolicy_model:\n  responses_api_models:\n    vllm_model: {base_url: "${policy_base_url}", port: "${port_value}"}\n', 'ok.yaml', {});
    assert.deepEqual(config.instances[0]!.config, { base_url: 'http://127.0.0.1:8000/v1', port: 9000 });
  });

  const agentSettings = (extra: string) => `
arithmetic: {resources_servers: {arithmetic: {}}}
policy_model: {responses_api_models: {gymnast_embedded: {}}}
agent:
  responses_api_agents:
    simple_agent:
      resources_server: {type: resources_servers, name: arithmetic}
      model_server: {type: responses_api_models, name: policy_model}
${extra}`;

  it("an agent's on_max_tokens: NeMo RL's continue by default, end when asked, anything else refused", () => {
    const settingsOf = (text: string) => planServers(parseServerConfig(text, 'ok.yaml', {})).find((plan) => plan.kind === 'agent')!;
    assert.equal((settingsOf(agentSettings('')) as AgentPlan).settings.on_max_tokens, 'continue');
    assert.equal((settingsOf(agentSettings('      on_max_tokens: end\n')) as AgentPlan).settings.on_max_tokens, 'end');
    assert.throws(() => planServers(parseServerConfig(agentSettings('      on_max_tokens: stop\n'), 'bad.yaml', {})), (error: unknown) => error instanceof ConfigFileError && /^bad\.yaml: agent\.responses_api_agents\.simple_agent\.on_max_tokens: expected "continue" or "end", got "stop"$/.test(error.message));
  });

  it('an impl gymnast cannot serve, with a suggestion', async () => {
    assert.match(await refusedToRun('env:\n  resources_servers:\n    example_session_state: {}\n'), /^bad\.yaml: env\.resources_servers\.example_session_state: a resources server gymnast serves .*, or a command: to run \(did you mean "example_session_state_mgmt"\?\)$/);
  });
});
