import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { SamplingParams } from '../../src/core/index.js';
import { RemotePolicy, vllmCompletionsBackend, chatCompletionsBackend, type PolicyRequest } from '../../src/policy/index.js';
import { embeddedPolicy } from '../support/embedded-arithmetic.js';

const bin = new URL('../../bin/gymnast.js', import.meta.url).pathname;
const child = spawn(process.execPath, [bin, 'serve', 'model', '--embedded', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const [line] = (await once(child.stdout, 'data')) as [Buffer];
const url = /at (http:\/\/\S+)\/v1/.exec(line.toString())![1]!;
const policies: RemotePolicy<unknown>[] = [];
after(async () => {
  await Promise.all(policies.map((policy) => policy.close()));
  child.kill('SIGTERM');
});

describe('gymnast serve model --embedded', () => {
  it('binds to loopback and reports the model and its context on /v1/models', async () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string; max_model_len: number }[] };
    assert.deepEqual(models.data.map(({ id, max_model_len }) => ({ id, max_model_len })), [{ id: 'gymnast-tiny-arith', max_model_len: 128 }]);
  });

  it('gives exactly the ids and logprobs of the in-process model, over the vLLM token-in path', async () => {
    const local = await embeddedPolicy();
    const remote = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [url], tokenizer: local.tokenizer });
    policies.push(remote as RemotePolicy<unknown>);
    const request: PolicyRequest = {
      session_id: 's',
      prompt_token_ids: local.tokenizer.encode('<|user|>what is 17*23?<|end|><|assistant|>'),
      messages: [],
      sampling: SamplingParams.parse({ temperature: 1, max_tokens: 20, seed: 5 }),
      stop_strings: ['</calc>'],
      stop_token_ids: local.tokenizer.stopTokenIds,
    };
    const signal = new AbortController().signal;
    const served = await remote.generate(request, signal);
    const inProcess = await local.generate(request, signal);
    assert.deepEqual(served.token_ids, inProcess.token_ids);
    assert.deepEqual(served.logprobs, inProcess.logprobs);
  });

  it('serves chat completions with return_token_ids and the prompt it rendered', async () => {
    const local = await embeddedPolicy();
    const remote = new RemotePolicy({ backend: chatCompletionsBackend('vllm'), urls: [url], tokenizer: local.tokenizer });
    policies.push(remote as RemotePolicy<unknown>);
    const result = await remote.generate(
      { session_id: 's', prompt_token_ids: [], messages: [{ role: 'user', content: 'what is 12+30?' }], sampling: SamplingParams.parse({ greedy: true, max_tokens: 8 }), stop_strings: [], stop_token_ids: [] },
      new AbortController().signal,
    );
    assert.deepEqual(result.prompt_token_ids, local.tokenizer.encode('<|user|>what is 12+30?<|end|><|assistant|>'));
    assert.ok((result.token_ids ?? []).length > 0);
  });
});
