import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { ConfigFileError } from '../../src/core/errors/config-file-error.js';
import { ServerStartError } from '../../src/core/errors/server-start-error.js';
import { startConfigRun, type ConfigRun } from '../../src/servers/config/config-run.js';
import { ephemeralPortLow } from '../../src/servers/config/pick-free-port.js';
import { planServers, type AgentPlan } from '../../src/servers/config/plan-servers.js';
import { loadServerConfig, parseServerConfig } from '../../src/servers/config/server-config.js';
import { isProcessAlive } from '../../src/util/process-alive.js';
import { qwen3Directory, qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';
import { InferenceServer } from '../../src/testing/index.js';

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
    // Ports picked free lie below the kernel's ephemeral range: no connection made before a server listens can take its port.
    for (const instance of instances) assert.ok(Number(new URL(instance.url).port) < ephemeralPortLow(), instance.url);
    const byName = Object.fromEntries(instances.map((instance) => [instance.name, instance]));
    assert.deepEqual(await getJson(`${byName.sidecar!.url}/`), {
      name: 'sidecar',
      port: new URL(byName.sidecar!.url).port,
      config: ((await getJson(`${run.headUrl}/global_config_dict_yaml`)) as string).length,
    });
    assert.equal(((await getJson(`${byName.policy_model!.url}/models`)) as { data: { id: string }[] }).data[0]!.id, 'gymnast-tiny-arith');
    const seeded = await fetch(`${byName.session_state!.url}/seed_session`, {
      method: 'POST',
      body: JSON.stringify({ responses_create_params: { input: [] }, initial_count: 2 }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(seeded.status, 200);
    assert.deepEqual(await getJson(`${run.headUrl}/`), { status: 'ok' });
  });

  it('publishes the resolved config as YAML in a JSON string, actual hosts and ports filled in', async () => {
    const text = await getJson(`${run.headUrl}/global_config_dict_yaml`);
    assert.equal(typeof text, 'string');
    const config = parse(text as string) as Record<string, Record<string, Record<string, Record<string, unknown>>>>;
    const urls = Object.fromEntries(run.servers.map((server) => [server.name, server.url]));
    for (const [name, type, impl] of [
      ['arithmetic', 'resources_servers', 'arithmetic'],
      ['sidecar', 'resources_servers', 'my_python_env'],
      ['arithmetic_simple_agent', 'responses_api_agents', 'simple_agent'],
    ] as const) {
      const { host, port } = config[name]![type]![impl]!;
      assert.equal(`http://${host}:${port}`, urls[name]);
    }
    assert.equal(config.sidecar!.resources_servers!.my_python_env!.description, 'served as gymnast-tiny-arith', '${...} interpolated');
    assert.equal((config.head_server as unknown as { port: number }).port, Number(new URL(run.headUrl).port));
  });

  it("runs a row through the agent's /run on the embedded model", async () => {
    const agent = run.servers.find((server) => server.name === 'arithmetic_simple_agent')!;
    const [line] = readFileSync(examples, 'utf8').split('\n');
    const row = {
      ...(JSON.parse(line!) as object),
      agent_ref: { type: 'responses_api_agents', name: 'arithmetic_simple_agent' },
      _ng_task_index: 0,
      _ng_rollout_index: 0,
    };
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
    const row = {
      ...(JSON.parse(line!) as object),
      agent_ref: { type: 'responses_api_agents', name: 'session_agent' },
      _ng_task_index: 0,
      _ng_rollout_index: 0,
    };
    const response = await fetch(`${agent.url}/run`, { method: 'POST', body: JSON.stringify(row), headers: { 'content-type': 'application/json' } });
    assert.equal(response.status, 200);
    const result = (await response.json()) as { reward?: number; has_training_tokens?: boolean; _ng_failure_class?: string; expected_count?: number };
    assert.equal(result._ng_failure_class, undefined, JSON.stringify(result).slice(0, 600));
    assert.equal(result.reward, 0, 'the embedded model never calls the counter tools, so the count stays wrong');
    assert.equal(result.expected_count, 6);
    assert.equal(result.has_training_tokens, true);
  });

  it('prefixes what an external server writes with its name', async () => {
    const noisy = await startConfigRun(
      parseServerConfig(
        `
head_server: {port: 0}
talker:
  resources_servers:
    talker:
      command: [${JSON.stringify(process.execPath)}, -e, ${JSON.stringify(`console.log('listening'); ${EXTERNAL_SERVER}`)}]
`,
        'talk.yaml',
      ),
      { output: (line) => output.push(line) },
    );
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

describe("a command: server is handed NEMO_GYM_CONFIG_DICT whole, as NeMo Gym's parser completes it", () => {
  const startup = new URL('../fixtures/servers/nemo-gym-startup.mjs', import.meta.url).pathname;

  it('starts a server that reads its host and port, head_server and dry_run from it, and finds the run-wide keys NeMo Gym fills in', async () => {
    const run = await startConfigRun(
      parseServerConfig(
        `
head_server: {host: 127.0.0.1, port: 0}
skip_verification: true
results_dir: runs/results
arithmetic:
  resources_servers:
    arithmetic: {}
gym_server:
  resources_servers:
    my_env:
      entrypoint: app.py
      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(startup)}]
gym_agent:
  responses_api_agents:
    my_agent:
      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(startup)}]
`,
        'startup.yaml',
      ),
      { output: () => undefined },
    );
    try {
      const url = (name: string) => run.servers.find((server) => server.name === name)!.url;
      const handed = (await getJson(`${url('gym_server')}/`)) as Record<string, unknown> & {
        gym_agent: { responses_api_agents: { my_agent: Record<string, unknown> } };
      };
      const ports = run.servers.map((server) => Number(new URL(server.url).port));
      const headPort = Number(new URL(run.headUrl).port);
      assert.deepEqual(
        Object.fromEntries(
          [
            'dry_run',
            'use_absolute_ip',
            'port_range_low',
            'port_range_high',
            'model_endpoint_readiness_timeout_seconds',
            'results_dir',
            'cache_dir',
            'head_server',
          ].map((key) => [key, handed[key]]),
        ),
        {
          dry_run: false,
          use_absolute_ip: false,
          port_range_low: 10_001,
          port_range_high: 20_000,
          model_endpoint_readiness_timeout_seconds: 600,
          results_dir: join(process.cwd(), 'runs/results'),
          cache_dir: join(process.cwd(), 'cache'),
          head_server: { host: '127.0.0.1', port: headPort },
        },
      );
      assert.deepEqual([...(handed.disallowed_ports as number[])].sort(), [headPort, ...ports].sort(), 'every port the run holds');
      assert.equal(handed.gym_agent.responses_api_agents.my_agent.skip_verification, true, 'the run-wide skip_verification, on each agent');
      assert.equal(((await getJson(`${url('gym_agent')}/`)) as { dry_run: boolean }).dry_run, false);
      const published = parse((await getJson(`${run.headUrl}/global_config_dict_yaml`)) as string) as Record<string, unknown>;
      assert.deepEqual(published, handed, 'the head server publishes the same config');
    } finally {
      await run.close();
    }
  });

  it("keeps a dry_run the config sets: NeMo Gym's server then exits without serving", async () => {
    const config = parseServerConfig(
      `head_server: {port: 0}\ndry_run: true\ngym_server:\n  resources_servers:\n    my_env:\n      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(startup)}]\n`,
      'dry.yaml',
    );
    await assert.rejects(
      startConfigRun(config, { output: () => undefined }),
      (error: unknown) => error instanceof ServerStartError && /server "gym_server": exited with code 0 before answering/.test(error.message),
    );
  });
});

describe("the agent stand-in's /aggregate_metrics", () => {
  const pythonServer = new URL('../fixtures/python/resources_server.py', import.meta.url).pathname;
  const rows = [0, 1].map((index) => ({
    _ng_task_index: 0,
    _ng_rollout_index: index,
    agent_ref: { type: 'responses_api_agents', name: 'counter_agent' },
    reward: index,
    counter: 3 + index,
    response: { usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 } },
  }));
  const aggregate = async (url: string) => {
    const response = await fetch(`${url}/aggregate_metrics`, {
      method: 'POST',
      body: JSON.stringify({ verify_responses: rows }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.status, 200);
    return (await response.json()) as { agent_metrics: Record<string, number>; key_metrics: Record<string, number> };
  };

  it("is its resources server's, as NeMo Gym's simple_agent proxies it: the server's own metrics are kept", async () => {
    const run = await startConfigRun(
      parseServerConfig(
        `
head_server: {port: 0}
policy_model: {responses_api_models: {gymnast_embedded: {}}}
counter:
  resources_servers:
    example_session_state_mgmt:
      command: [python3, ${JSON.stringify(pythonServer)}, --kind, counter, --name, counter, --port, "{port}"]
counter_agent:
  responses_api_agents:
    simple_agent:
      resources_server: {type: resources_servers, name: counter}
      model_server: {type: responses_api_models, name: policy_model}
plain:
  resources_servers:
    example_session_state_mgmt:
      command: [python3, ${JSON.stringify(pythonServer)}, --no-aggregate, --port, "{port}"]
plain_agent:
  responses_api_agents:
    simple_agent:
      resources_server: {type: resources_servers, name: plain}
      model_server: {type: responses_api_models, name: policy_model}
arithmetic: {resources_servers: {arithmetic: {}}}
arithmetic_agent:
  responses_api_agents:
    simple_agent:
      resources_server: {type: resources_servers, name: arithmetic}
      model_server: {type: responses_api_models, name: policy_model}
`,
        'aggregate.yaml',
      ),
      { output: () => undefined },
    );
    try {
      const url = (name: string) => run.servers.find((server) => server.name === name)!.url;
      const forwarded = await aggregate(url('counter_agent'));
      assert.equal(forwarded.agent_metrics['server/verify_responses'], 2, "the resources server's own metric");
      assert.equal(forwarded.agent_metrics['mean/counter'], 3.5);
      const calls = (await getJson(`${url('counter')}/_calls`)) as Record<string, number>;
      assert.equal(calls['/aggregate_metrics'], 1);
      for (const agent of ['arithmetic_agent', 'plain_agent']) {
        const own = await aggregate(url(agent));
        assert.equal(
          own.agent_metrics['server/verify_responses'],
          undefined,
          `${agent}: gymnast computes the aggregate of a built-in environment run in-process, and for a server without /aggregate_metrics`,
        );
        assert.equal(own.agent_metrics['mean/reward'], 0.5);
      }
    } finally {
      await run.close();
    }
  });
});

describe("a vllm_model from NeMo Gym's own keys (base_url, model): its tokenizer found without a gymnast key", () => {
  const vllmModelYaml = new URL('../fixtures/nemo-gym/configs/vllm_model.yaml', import.meta.url).pathname;
  /** NeMo Gym's own vllm_model.yaml, its policy_* values given as env.yaml gives them, and an agent sampling it. */
  const configFile = join(mkdtempSync(join(tmpdir(), 'gymnast-vllm-model-')), 'e2e.yaml');
  const config = (baseUrl: string, model: string) => {
    writeFileSync(
      configFile,
      `
config_paths: [${JSON.stringify(vllmModelYaml)}]
head_server: {port: 0}
policy_base_url: ${baseUrl}/v1
policy_api_key: EMPTY
policy_model_name: ${model}
arithmetic: {resources_servers: {arithmetic: {}}}
arithmetic_agent:
  responses_api_agents:
    simple_agent:
      resources_server: {type: resources_servers, name: arithmetic}
      model_server: {type: responses_api_models, name: policy_model}
      max_tokens: 16
`,
    );
    return loadServerConfig(configFile);
  };
  /** A vLLM stand-in on Qwen3's tokenizer serving `model`, loaded from `root`; closed by `use`'s end. */
  const withServer = async (options: { model: string; root?: string }, use: (server: InferenceServer, url: string) => Promise<void>) => {
    const server = new InferenceServer({ tokenizer: await qwen3Tokenizer(), template: await qwen3Template(), ...options });
    const url = await server.start();
    try {
      await use(server, url);
    } finally {
      await server.close();
    }
  };
  /** A Hugging Face cache holding `model`'s tokenizer as the hub lays it out: `refs/main` naming a snapshot. */
  const hubCache = (model?: string) => {
    const home = mkdtempSync(join(tmpdir(), 'gymnast-hf-home-'));
    if (model === undefined) return home;
    const repo = join(home, 'hub', `models--${model.replaceAll('/', '--')}`);
    mkdirSync(join(repo, 'refs'), { recursive: true });
    mkdirSync(join(repo, 'snapshots', 'c1a5e0'), { recursive: true });
    writeFileSync(join(repo, 'refs', 'main'), 'c1a5e0');
    for (const file of ['tokenizer.json', 'tokenizer_config.json']) symlinkSync(join(qwen3Directory, file), join(repo, 'snapshots', 'c1a5e0', file));
    return home;
  };
  const runRow = async (run: ConfigRun) => {
    const agent = run.servers.find((server) => server.name === 'arithmetic_agent')!;
    const [line] = readFileSync(examples, 'utf8').split('\n');
    const row = {
      ...(JSON.parse(line!) as object),
      agent_ref: { type: 'responses_api_agents', name: 'arithmetic_agent' },
      _ng_task_index: 0,
      _ng_rollout_index: 0,
    };
    const response = await fetch(`${agent.url}/run`, { method: 'POST', body: JSON.stringify(row), headers: { 'content-type': 'application/json' } });
    const result = (await response.json()) as { has_training_tokens?: boolean; _ng_failure_class?: string };
    assert.equal(result._ng_failure_class, undefined, JSON.stringify(result).slice(0, 400));
    assert.equal(result.has_training_tokens, true);
  };

  it('by the model name, in the Hugging Face cache', () =>
    withServer({ model: 'Qwen/Qwen3-0.6B' }, async (server, url) => {
      const run = await startConfigRun(config(url, 'Qwen/Qwen3-0.6B'), { env: { HF_HOME: hubCache('Qwen/Qwen3-0.6B') } });
      try {
        await runRow(run);
        assert.equal(
          server.requests.filter((request) => request.path === '/v1/models').length,
          1,
          'the name was enough: /v1/models is asked only for max_model_len',
        );
      } finally {
        await run.close();
      }
    }));

  it("by what the server's /v1/models says it loaded (root), when the name is not a tokenizer gymnast has", () =>
    withServer({ model: 'qwen3-served', root: qwen3Directory }, async (_, url) => {
      const run = await startConfigRun(config(url, 'qwen3-served'), { env: { HF_HOME: hubCache() } });
      try {
        await runRow(run);
      } finally {
        await run.close();
      }
    }));

  it('found nowhere, the error names the key to set and where it looked', () =>
    withServer({ model: 'qwen3-served', root: 'Qwen/Qwen3-Unseen' }, async (_, url) => {
      const home = hubCache();
      const error = await startConfigRun(config(url, 'qwen3-served'), { env: { HF_HOME: home } }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof ConfigFileError, String(error));
      assert.equal(
        error.message,
        `${configFile}: policy_model.responses_api_models.vllm_model.tokenizer: missing: agent "arithmetic_agent" samples this model with exact tokens and needs its tokenizer.json and tokenizer_config.json, found from neither model "qwen3-served" nor the server (/v1/models lists "Qwen/Qwen3-Unseen" and "qwen3-served"): looked in qwen3-served, ${join(home, 'hub', 'models--qwen3-served')}, Qwen/Qwen3-Unseen, ${join(home, 'hub', 'models--Qwen--Qwen3-Unseen')}; set it to the tokenizer's folder`,
      );
    }));
});

describe('a NeMo Gym server gymnast has a TypeScript port of: the port runs visibly, --nemo-gym runs the real one', () => {
  const config = () =>
    parseServerConfig(
      `
head_server: {port: 0}
policy_model: {responses_api_models: {gymnast_embedded: {}}}
mcqa:
  resources_servers:
    mcqa: {entrypoint: app.py, domain: knowledge}
mcqa_simple_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.py
      resources_server: {type: resources_servers, name: mcqa}
      model_server: {type: responses_api_models, name: policy_model}
`,
      'mcqa.yaml',
    );
  /** A Gym checkout whose mcqa is a stand-in saying how it was run (Python's standard library cannot read the YAML config, so it listens on PORT). */
  const checkout = (venv: boolean) => {
    const gym = mkdtempSync(join(tmpdir(), 'gymnast-checkout-'));
    const dir = join(gym, 'resources_servers', 'mcqa');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'app.py'),
      [
        'import json, os, sys',
        'from http.server import BaseHTTPRequestHandler, HTTPServer',
        'class Handler(BaseHTTPRequestHandler):',
        '    def do_GET(self):',
        '        body = json.dumps({"cwd": os.getcwd(), "name": os.environ["NEMO_GYM_CONFIG_PATH"], "dict": "dry_run: false" in os.environ["NEMO_GYM_CONFIG_DICT"], "path": os.environ["PYTHONPATH"], "python": sys.executable}).encode()',
        '        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)',
        'HTTPServer((os.environ["HOST"], int(os.environ["PORT"])), Handler).serve_forever()',
        '',
      ].join('\n'),
    );
    if (venv) {
      mkdirSync(join(dir, '.venv', 'bin'), { recursive: true });
      symlinkSync(execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim(), join(dir, '.venv', 'bin', 'python'));
    }
    return { gym, dir };
  };

  it("says so when gymnast's port stands in for NeMo Gym's own, and which flag runs the real one", async () => {
    const notices: string[] = [];
    const run = await startConfigRun(config(), { onNotice: (message) => notices.push(message) });
    await run.close();
    assert.deepEqual(notices, [
      "mcqa: gymnast's TypeScript port of NeMo Gym's resources_servers/mcqa runs in-process, not NeMo Gym's own app.py; --nemo-gym DIR runs NeMo Gym's own from a Gym checkout",
      "mcqa_simple_agent: gymnast's agent server (its exact-token loop) stands in for NeMo Gym's responses_api_agents/simple_agent; a command: for it runs NeMo Gym's own",
    ]);
    assert.equal(run.servers.find((server) => server.name === 'mcqa')!.pid, undefined);
  });

  it("runs NeMo Gym's own from a checkout as ng_run does: python <entrypoint> in its folder, its .venv when there", async () => {
    for (const venv of [false, true]) {
      const { gym, dir } = checkout(venv);
      const notices: string[] = [];
      const run = await startConfigRun(config(), { nemoGym: gym, onNotice: (message) => notices.push(message), output: () => undefined });
      try {
        const mcqa = run.servers.find((server) => server.name === 'mcqa')!;
        assert.equal(typeof mcqa.pid, 'number');
        const ran = (await getJson(`${mcqa.url}/`)) as { cwd: string; name: string; dict: boolean; path: string; python: string };
        assert.deepEqual({ cwd: ran.cwd, name: ran.name, dict: ran.dict, path: ran.path.split(':')[0] }, { cwd: dir, name: 'mcqa', dict: true, path: dir });
        if (venv) assert.equal(ran.python, join(dir, '.venv', 'bin', 'python'));
        assert.ok(!notices.some((notice) => notice.startsWith('mcqa:')), notices.join('\n'));
      } finally {
        await run.close();
      }
    }
  });

  it('refuses a checkout without the server, naming the key, before starting anything', async () => {
    const gym = mkdtempSync(join(tmpdir(), 'gymnast-checkout-'));
    const error = await startConfigRun(config(), { nemoGym: gym, onNotice: () => undefined }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof ConfigFileError, String(error));
    assert.equal(
      error.message,
      `mcqa.yaml: mcqa.resources_servers.mcqa.entrypoint: a file in ${join(gym, 'resources_servers', 'mcqa')} to run, as NeMo Gym runs it; ${join(gym, 'resources_servers', 'mcqa', 'app.py')} is not there`,
    );
  });
});

describe('a config run that cannot start', () => {
  it('stops the servers already started and names the one that failed', async () => {
    const config = parseServerConfig(
      `
head_server: {port: 0}
arithmetic:
  resources_servers:
    arithmetic: {port: 0}
broken:
  resources_servers:
    broken:
      command: [${JSON.stringify(process.execPath)}, -e, "console.error('no such module: app'); process.exit(3)"]
`,
      'broken.yaml',
    );
    const error = await startConfigRun(config, { output: () => undefined }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof ServerStartError, String(error));
    assert.equal(error.server, 'broken');
    assert.match(
      error.message,
      /server "broken": exited with code 3 before answering GET http:\/\/127\.0\.0\.1:\d+\/; its last output:\n {2}no such module: app/,
    );
  });

  it('names a command that cannot be run', async () => {
    const config = parseServerConfig(
      'head_server: {port: 0}\nmissing:\n  resources_servers:\n    missing:\n      command: [/no/such/program, --port, "{port}"]\n',
      'missing.yaml',
    );
    await assert.rejects(
      startConfigRun(config, { output: () => undefined }),
      (error: unknown) =>
        error instanceof ServerStartError && /^server "missing": could not run \/no\/such\/program: spawn \/no\/such\/program ENOENT$/.test(error.message),
    );
  });

  it('gives up on a server that never answers, at its deadline', async () => {
    const config = parseServerConfig(
      `
head_server: {port: 0}
silent:
  resources_servers:
    silent:
      command: [${JSON.stringify(process.execPath)}, -e, "setInterval(() => {}, 1000)"]
      startup_timeout_seconds: 0.5
`,
      'silent.yaml',
    );
    await assert.rejects(
      startConfigRun(config, { output: () => undefined }),
      (error: unknown) => error instanceof ServerStartError && /server "silent": did not answer GET .* within 0\.5 s/.test(error.message),
    );
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
    const error = await startConfigRun(parseServerConfig(text, 'bad.yaml', {})).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof ConfigFileError, String(error));
    return error.message;
  };

  it('an unknown server type, with a suggestion', () => {
    assert.equal(
      refused('env:\n  resource_servers:\n    arithmetic: {}\n'),
      'bad.yaml: env.resource_servers: a server type: one of responses_api_models, resources_servers, responses_api_agents (did you mean "resources_servers"?)',
    );
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
    assert.equal(
      message,
      'bad.yaml: agent.responses_api_agents.simple_agent.resources_server.name: the name of a defined resources_servers instance (arithmetic), got "arithmatic" (did you mean "arithmetic"?)',
    );
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
    assert.equal(
      message,
      [
        'bad.yaml: policy_model.responses_api_models.vllm_model.base_url: a key "policy_base_url" for ${policy_base_url} to read; the config has none',
        'bad.yaml: policy_model.responses_api_models.vllm_model.model: a value (??? marks one that must be given)',
      ].join('\n'),
    );
  });

  it('interpolates top-level keys, keeping their types', () => {
    const config = parseServerConfig(
      'policy_base_url: http://127.0.0.1:8000/v1\nport_value: 9000\npolicy_model:\n  responses_api_models:\n    vllm_model: {base_url: "${policy_base_url}", port: "${port_value}"}\n',
      'ok.yaml',
      {},
    );
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
    assert.throws(
      () => planServers(parseServerConfig(agentSettings('      on_max_tokens: stop\n'), 'bad.yaml', {})),
      (error: unknown) =>
        error instanceof ConfigFileError &&
        /^bad\.yaml: agent\.responses_api_agents\.simple_agent\.on_max_tokens: expected "continue" or "end", got "stop"$/.test(error.message),
    );
  });

  it('an impl gymnast cannot serve, with a suggestion', async () => {
    assert.match(
      await refusedToRun('env:\n  resources_servers:\n    example_session_state: {}\n'),
      /^bad\.yaml: env\.resources_servers\.example_session_state: a resources server gymnast serves .*, or a command: to run \(did you mean "example_session_state_mgmt"\?\)$/,
    );
  });
});
