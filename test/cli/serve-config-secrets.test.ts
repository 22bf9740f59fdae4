import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';

const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const [PREFIX, SUFFIX] = ['SECRET-', '8f14e45f'];
const SECRET = `${PREFIX}${SUFFIX}`;

/** A spawned server that says whether the config gymnast handed it holds the real key (it needs it); its own text does not. */
const SIDECAR = `require('node:http').createServer((_, response) => response.end(JSON.stringify({ hasKey: process.env.NEMO_GYM_CONFIG_DICT.includes('${PREFIX}' + '${SUFFIX}') }))).listen(Number(process.env.PORT), process.env.HOST)`;

/** A NeMo Gym config as its e2e runs write them: a vLLM endpoint with its key, tokens for hubs, and settings that only look like secrets. */
const CONFIG = `
head_server: {port: 0}
hf_token: hf_${SECRET}
policy_api_key: ${SECRET}
policy_model:
  responses_api_models:
    vllm_model:
      base_url: http://user:${SECRET}@127.0.0.1:9/v1
      api_key: \${policy_api_key}
      model: qwen
      max_tokens: 512
      eos_token: "<|im_end|>"
      extra_body: {}
arithmetic:
  resources_servers:
    arithmetic: {}
sidecar:
  resources_servers:
    sidecar:
      command: [${JSON.stringify(process.execPath)}, -e, ${JSON.stringify(SIDECAR)}]
      env: {OPENAI_API_KEY: ${SECRET}, LOG_LEVEL: info}
`;

/** Starts `gymnast ARGS…` and resolves with the child and the first URL its stdout names after `pattern`. */
async function startServing(
  args: readonly string[],
  pattern: RegExp,
): Promise<{ url: string; stdout: () => string; stderr: () => string; stop: () => Promise<unknown> }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = pattern.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return {
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

describe('gymnast serve --config: the head server keeps the config’s secrets', () => {
  it("leaves a subcommand's own --api-key to it (serve resources … --api-key K)", async () => {
    const server = await startServing(['serve', 'resources', 'arithmetic', '--port', '0', '--api-key', 'K'], /server at (http:\/\/\S+);/);
    try {
      assert.equal((await fetch(`${server.url}/seed_session`, { method: 'POST', body: '{}' })).status, 401);
    } finally {
      await server.stop();
    }
  });

  it('publishes the config with every key, token and URL credential masked, behind --api-key, while the spawned servers still get the real values', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gymnast-head-secrets-')), 'gym.yaml');
    writeFileSync(file, CONFIG);
    const head = await startServing(['serve', '--config', file, '--api-key', 'head-key'], /head server at (http:\/\/\S+) /);
    const headUrl = head.url;
    try {
      for (const path of ['/', '/server_instances', '/global_config_dict_yaml']) {
        assert.equal((await fetch(`${headUrl}${path}`)).status, 401, `${path} without the head server's key`);
        assert.equal((await fetch(`${headUrl}${path}`, { headers: { authorization: 'Bearer wrong' } })).status, 401, `${path} with another key`);
      }
      const authorized = { headers: { authorization: 'Bearer head-key' } };
      const text = (await (await fetch(`${headUrl}/global_config_dict_yaml`, authorized)).json()) as string;
      const instances = (await (await fetch(`${headUrl}/server_instances`, authorized)).json()) as { name: string; url: string }[];
      assert.ok(!text.includes(SECRET), text);
      assert.ok(!JSON.stringify(instances).includes(SECRET), JSON.stringify(instances));
      assert.ok(!head.stdout().includes(SECRET) && !head.stderr().includes(SECRET), head.stdout() + head.stderr());

      const config = parse(text) as Record<string, Record<string, Record<string, Record<string, unknown>>>> & { hf_token: string; policy_api_key: string };
      const model = config.policy_model!.responses_api_models!.vllm_model!;
      assert.deepEqual(
        { hf_token: config.hf_token, policy_api_key: config.policy_api_key, ...model },
        {
          hf_token: '***',
          policy_api_key: '***',
          base_url: 'http://***@127.0.0.1:9/v1',
          api_key: '***',
          model: 'qwen',
          max_tokens: 512,
          eos_token: '<|im_end|>',
          extra_body: {},
        },
      );
      assert.deepEqual(config.sidecar!.resources_servers!.sidecar!.env, { OPENAI_API_KEY: '***', LOG_LEVEL: 'info' });
      // What NeMo Gym's ServerClient reads of it, where each server listens, is whole.
      const { host, port } = config.arithmetic!.resources_servers!.arithmetic!;
      assert.equal(`http://${String(host)}:${String(port)}`, instances.find((instance) => instance.name === 'arithmetic')!.url);
      assert.equal(instances.find((instance) => instance.name === 'policy_model')!.url, 'http://***@127.0.0.1:9/v1');
      const sidecar = instances.find((instance) => instance.name === 'sidecar')!;
      assert.deepEqual(await (await fetch(sidecar.url)).json(), { hasKey: true }, 'a spawned server is handed the real config');
    } finally {
      await head.stop();
    }
  });
});
