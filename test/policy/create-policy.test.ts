import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ConfigError, hasKind } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { createPolicy, parsePolicySpec, RemotePolicy, vllmCompletionsBackend, type CreatedPolicy, type RouterEvent } from '../../src/policy/index.js';
import type { InferenceServer } from '../../src/testing/index.js';
import { TokenLedger } from '../../src/tokens/index.js';
import { addTask, startServers, toolEpisodeOptions } from '../support/loopback-model.js';
import { qwen3Directory, qwen3Tokenizer } from '../support/qwen3.js';

const started: InferenceServer[] = [];
const created: { policy: { close(): Promise<void> } }[] = [];
after(async () => {
  await Promise.all(created.map(({ policy }) => policy.close()));
  await Promise.all(started.map((server) => server.close()));
});

async function serve(options: Parameters<typeof startServers>[1] = {}): Promise<InferenceServer> {
  const [server] = await startServers(1, options);
  started.push(server!);
  return server!;
}

function kept(result: CreatedPolicy): CreatedPolicy {
  created.push(result);
  return result;
}

const modelLookups = (server: InferenceServer) => server.requests.filter((request) => request.path === '/v1/models').length;

describe('createPolicy', () => {
  it('builds a served policy and its renderer, with the context length the server reports', async () => {
    const server = await serve({ maxModelLen: 4096 });
    const { policy, renderer, maxModelLen } = kept(await createPolicy({ kind: 'vllm-completions', baseUrls: [server.url], tokenizerDir: qwen3Directory }));
    assert.equal(maxModelLen, 4096);
    assert.equal(policy.name, 'vllm-completions');
    const record = await runEpisode(addTask(0), 0, { ...(await toolEpisodeOptions(policy)), renderer });
    assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
    assert.equal(record.reward, 1);
  });

  it('takes the context length from the spec when given, without asking the server', async () => {
    const server = await serve({ maxModelLen: 4096 });
    const { maxModelLen } = kept(await createPolicy({ kind: 'vllm-chat', baseUrls: [server.url], tokenizerDir: qwen3Directory, maxModelLen: 2048 }));
    assert.equal(maxModelLen, 2048);
    assert.equal(modelLookups(server), 0);
  });

  it('refuses a server that reports no context length, saying to pass one (--max-seq-len)', async () => {
    const server = await serve({ reportsMaxModelLen: false });
    await assert.rejects(createPolicy({ kind: 'openai', baseUrls: [server.url], tokenizerDir: qwen3Directory }), (error) => {
      assert.ok(hasKind(error, 'config'), String(error));
      assert.match(error.message, /no max_model_len/);
      assert.match(error.message, /--max-seq-len/);
      return true;
    });
    assert.equal(modelLookups(server), 1);
  });

  it("passes the router's events to the observer given in its options", async () => {
    const server = await serve();
    server.faults.inject({ kind: 'status', status: 503 });
    const events: RouterEvent[] = [];
    kept(
      await createPolicy({ kind: 'sglang-generate', baseUrls: [server.url], tokenizerDir: qwen3Directory }, { onRouterEvent: (event) => events.push(event) }),
    );
    assert.deepEqual(
      events.map((event) => event.type),
      ['retry'],
    );
  });

  it("sends a base URL's user and password to the server as Basic auth, and refuses an API key beside them without showing either", async () => {
    const server = await serve();
    const { policy, renderer } = kept(
      await createPolicy({ kind: 'vllm-completions', baseUrls: [`${server.url.replace('http://', 'http://user:pass%21@')}/v1`], tokenizerDir: qwen3Directory }),
    );
    const record = await runEpisode(addTask(0), 0, { ...(await toolEpisodeOptions(policy)), renderer });
    assert.equal(record.record_type, 'rollout', JSON.stringify(record.termination));
    assert.deepEqual(new Set(server.requests.map((request) => request.authorization)), new Set([`Basic ${Buffer.from('user:pass!').toString('base64')}`]));
    const both = { kind: 'vllm-chat', baseUrls: ['http://user:SECRET@localhost:8000'], tokenizerDir: 'x', apiKey: 'KEY' };
    assert.throws(
      () => parsePolicySpec(both),
      (error) =>
        error instanceof ConfigError &&
        /http:\/\/\*\*\*@localhost:8000 has a user and password .* keep one/.test(error.message) &&
        !/SECRET|KEY/.test(error.message),
    );
  });

  it('builds the embedded model with its own template and context length', async () => {
    const { policy, renderer, maxModelLen } = kept(await createPolicy({ kind: 'embedded' }));
    assert.equal(policy.name, 'embedded');
    assert.equal(maxModelLen, 256);
    const { tokenIds } = renderer.renderDelta(new TokenLedger(renderer.tokenizer), [], [{ role: 'user', content: 'what is 2+3?' }], {
      addGenerationPrompt: true,
    });
    assert.equal(renderer.tokenizer.decode(tokenIds.flat()), '<|user|>what is 2+3?<|end|><|assistant|>');
  });

  it('refuses a bad spec with a ConfigError naming the field', async () => {
    await assert.rejects(
      createPolicy({ kind: 'vllm-completions', baseUrls: [], tokenizerDir: qwen3Directory }),
      (error) => hasKind(error, 'config') && /baseUrls/.test(error.message),
    );
    const cases: [unknown, RegExp][] = [
      [{ kind: 'vllm', baseUrls: ['http://localhost:8000'], tokenizerDir: 'x' }, /kind/],
      [{ kind: 'sglang-chat', baseUrls: ['localhost:8000'], tokenizerDir: 'x' }, /baseUrls\.0/],
      [{ kind: 'vllm-chat', baseUrls: ['http://localhost:8000'] }, /tokenizerDir/],
      [{ kind: 'vllm-chat', baseUrls: ['http://localhost:8000'], tokenizerDir: 'x', maxModelLen: 0 }, /maxModelLen/],
      [{ kind: 'embedded', baseUrls: ['http://localhost:8000'] }, /baseUrls/],
      [{ kind: 'vllm-chat', baseUrls: ['file:///etc/passwd'], tokenizerDir: 'x' }, /baseUrls\.0: expected an http or https URL/],
      // A line break would start a header of the key's choosing; undici refused it with no field named.
      [{ kind: 'vllm-chat', baseUrls: ['http://localhost:8000'], tokenizerDir: 'x', apiKey: 'sk\r\nX-Injected: 1' }, /apiKey: must not contain line breaks/],
    ];
    for (const [spec, field] of cases)
      assert.throws(
        () => parsePolicySpec(spec),
        (error) => error instanceof ConfigError && field.test(error.message),
        JSON.stringify(spec),
      );
  });
});

describe('the model lookup', () => {
  it('gives up at its deadline with a timeout, and close releases the request still waiting', async () => {
    const server = await serve();
    server.faults.inject({ kind: 'hang' });
    const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [server.url], tokenizer: await qwen3Tokenizer() });
    await assert.rejects(policy.lookupModel({ timeoutMs: 100 }), (error) => hasKind(error, 'timeout') && /\/v1\/models/.test(error.message));
    const closing = performance.now();
    await policy.close();
    assert.ok(performance.now() - closing < 1_000);
  });

  it('says which model is served and its context length', async () => {
    const server = await serve({ maxModelLen: 3000 });
    const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [server.url], tokenizer: await qwen3Tokenizer() });
    created.push({ policy });
    assert.deepEqual(await policy.lookupModel(), { id: 'gymnast-test-model', maxModelLen: 3000 });
  });
});
