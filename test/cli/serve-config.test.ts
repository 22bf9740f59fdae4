import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gymnast } from '../support/run-cli.js';
import { isProcessAlive } from '../../src/util/process-alive.js';

const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'gymnast-serve-config-'));

const EXTERNAL_SERVER = `require('node:http').createServer((_, response) => response.end('{}')).listen(Number(process.env.PORT), process.env.HOST)`;

function configFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('gymnast serve --config', () => {
  it('starts every server, prints where, serves the head server, and Ctrl-C stops them all, the spawned process included', async () => {
    const file = configFile(
      'e2e.yaml',
      `
head_server: {port: 0}
policy_model:
  responses_api_models:
    gymnast_embedded: {}
arithmetic:
  resources_servers:
    arithmetic: {}
arithmetic_agent:
  responses_api_agents:
    simple_agent:
      resources_server: {type: resources_servers, name: arithmetic}
      model_server: {type: responses_api_models, name: policy_model}
sidecar:
  resources_servers:
    sidecar:
      command: [${JSON.stringify(process.execPath)}, -e, ${JSON.stringify(`console.log('sidecar up'); ${EXTERNAL_SERVER}`)}]
`,
    );
    const child = spawn(process.execPath, [bin, 'serve', '--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const headUrl = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /head server at (http:\/\/\S+) /.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const exited = once(child, 'exit');
    try {
      assert.match(stdout, /^name +type +impl +url\n/);
      assert.match(stdout, /\narithmetic_agent +responses_api_agents +simple_agent +http:\/\/127\.0\.0\.1:\d+\n/);
      const instances = (await (await fetch(`${headUrl}/server_instances`)).json()) as { name: string; url: string; pid?: number }[];
      assert.deepEqual(instances.map((instance) => instance.name).sort(), ['arithmetic', 'arithmetic_agent', 'policy_model', 'sidecar']);
      for (const instance of instances) assert.ok((await fetch(instance.url)).status < 500, instance.name);
      const pid = instances.find((instance) => instance.name === 'sidecar')!.pid!;
      assert.ok(isProcessAlive(pid));
      assert.match(stderr, /\[sidecar\] sidecar up/);

      child.kill('SIGINT');
      const [code] = (await exited) as [number | null];
      assert.equal(code, 0, stderr);
      assert.equal(isProcessAlive(pid), false, 'the spawned server is gone');
      for (const instance of instances) await assert.rejects(fetch(instance.url), instance.name);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a server that does not come up fails the command, naming it', async () => {
    const file = configFile(
      'broken.yaml',
      `
head_server: {port: 0}
arithmetic:
  resources_servers:
    arithmetic: {}
broken:
  resources_servers:
    broken:
      command: [${JSON.stringify(process.execPath)}, -e, "process.exit(3)"]
`,
    );
    const { code, stderr } = await gymnast('serve', '--config', file);
    assert.notEqual(code, 0);
    assert.match(stderr, /^gymnast: server-start: server "broken": exited with code 3 before answering GET http:\/\/127\.0\.0\.1:\d+\/\n$/);
  });

  it("with --nemo-gym DIR, runs NeMo Gym's own server from the checkout instead of the port, and names what the checkout lacks", async () => {
    const file = configFile('mcqa.yaml', 'head_server: {port: 0}\nmcqa:\n  resources_servers:\n    mcqa: {entrypoint: app.py}\n');
    const { code, stderr } = await gymnast('serve', '--config', file, '--nemo-gym', dir);
    assert.equal(code, 1);
    assert.equal(
      stderr,
      `gymnast: config: ${file}: mcqa.resources_servers.mcqa.entrypoint: a file in ${join(dir, 'resources_servers', 'mcqa')} to run, as NeMo Gym runs it; ${join(dir, 'resources_servers', 'mcqa', 'app.py')} is not there\n`,
    );
  });

  for (const [what, text, expected] of [
    [
      'an unknown type',
      'env:\n  resource_servers:\n    arithmetic: {}\n',
      'env.resource_servers: a server type: one of responses_api_models, resources_servers, responses_api_agents (did you mean "resources_servers"?)',
    ],
    [
      'a bad ref',
      'arithmetic: {resources_servers: {arithmetic: {}}}\nm: {responses_api_models: {gymnast_embedded: {}}}\na:\n  responses_api_agents:\n    simple_agent:\n      resources_server: {type: resources_servers, name: arithmetik}\n      model_server: {type: responses_api_models, name: m}\n',
      'a.responses_api_agents.simple_agent.resources_server.name: the name of a defined resources_servers instance (arithmetic), got "arithmetik" (did you mean "arithmetic"?)',
    ],
    [
      'a missing required field',
      'm:\n  responses_api_models:\n    vllm_model: {model: qwen}\n',
      'm.responses_api_models.vllm_model.base_url: missing (expected an http(s) URL or a list of them)',
    ],
    ['invalid YAML', 'a: [1, 2\nb: 3\n', 'line 2, column 1: valid YAML:'],
    [
      "a run deadline past a day (Node's timers overflow)",
      'arithmetic: {resources_servers: {arithmetic: {}}}\nm: {responses_api_models: {gymnast_embedded: {}}}\na:\n  responses_api_agents:\n    simple_agent:\n      resources_server: {type: resources_servers, name: arithmetic}\n      model_server: {type: responses_api_models, name: m}\n      run_timeout_seconds: 3000000\n',
      'a.responses_api_agents.simple_agent.run_timeout_seconds: expected at most a day (86400 seconds), got 3000000',
    ],
    [
      'a startup deadline past a day',
      'x:\n  resources_servers:\n    sidecar:\n      command: [node]\n      startup_timeout_seconds: 3000000\n',
      'x.resources_servers.sidecar.startup_timeout_seconds: expected at most a day (86400 seconds), got 3000000',
    ],
  ] as const) {
    it(`refuses ${what} naming the file, the YAML path and the expectation, without a stack`, async () => {
      const file = configFile(`${what.replaceAll(' ', '-')}.yaml`, text);
      const { code, stderr } = await gymnast('serve', '--config', file);
      assert.notEqual(code, 0);
      assert.ok(stderr.startsWith(`gymnast: config: ${file}: ${expected}`), stderr);
      assert.doesNotMatch(stderr, /\n\s+at /);
    });
  }
});
