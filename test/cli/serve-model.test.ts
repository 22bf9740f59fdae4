import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import OpenAI from 'openai';
import { SamplingParams } from '../../src/core/index.js';
import { calculate, CALCULATOR_TOOL } from '../../src/environments/index.js';
import { RemotePolicy, vllmCompletionsBackend, chatCompletionsBackend, type PolicyRequest } from '../../src/policy/index.js';
import { embeddedPolicy } from '../support/embedded-arithmetic.js';
import { gymnast } from '../support/run-cli.js';

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
    assert.deepEqual(
      models.data.map(({ id, max_model_len }) => ({ id, max_model_len })),
      [{ id: 'gymnast-tiny-arith', max_model_len: 256 }],
    );
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
      stop_strings: [],
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
      {
        session_id: 's',
        prompt_token_ids: [],
        messages: [{ role: 'user', content: 'what is 12+30?' }],
        sampling: SamplingParams.parse({ greedy: true, max_tokens: 8 }),
        stop_strings: [],
        stop_token_ids: [],
      },
      new AbortController().signal,
    );
    assert.deepEqual(result.prompt_token_ids, local.tokenizer.encode('<|user|>what is 12+30?<|end|><|assistant|>'));
    assert.ok((result.token_ids ?? []).length > 0);
  });

  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
  const tools = [CALCULATOR_TOOL];
  const asked = { model: 'gymnast-tiny-arith', tools, seed: 3, temperature: 0 };

  it('returns the calculator call it writes as tool_calls through the openai SDK, finishing with tool_calls', async () => {
    const completion = await client.chat.completions.create({ ...asked, messages: [{ role: 'user', content: 'what is 23*45?' }] });
    const [choice] = completion.choices;
    assert.equal(choice!.finish_reason, 'tool_calls');
    assert.equal(choice!.message.content, null);
    const [call] = choice!.message.tool_calls ?? [];
    assert.ok(call?.type === 'function', JSON.stringify(choice!.message));
    assert.equal(call.function.name, 'calculator');
    assert.deepEqual(JSON.parse(call.function.arguments), { expression: '23*45' });
    assert.match(call.id, /^call_/);
  });

  it('completes a tool round trip from the openai SDK: the client runs the call and sends its result, and the model answers with it', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'what is 37*86?' }];
    const first = (await client.chat.completions.create({ ...asked, messages })).choices[0]!;
    const call = first.message.tool_calls?.[0];
    assert.ok(call?.type === 'function', JSON.stringify(first.message));
    messages.push(first.message, {
      role: 'tool',
      tool_call_id: call.id,
      content: JSON.stringify(calculate(JSON.parse(call.function.arguments) as Record<string, unknown>)),
    });
    const second = (await client.chat.completions.create({ ...asked, messages })).choices[0]!;
    assert.equal(second.finish_reason, 'stop');
    assert.equal(second.message.content, String(37 * 86));
    assert.equal(second.message.tool_calls, undefined);
  });

  it('streams a tool call to the openai SDK as a tool_calls delta', async () => {
    const stream = await client.chat.completions.create({ ...asked, messages: [{ role: 'user', content: 'what is 12+34+567?' }], stream: true });
    const deltas = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(finish, 'tool_calls');
    assert.equal(deltas.length, 1);
    assert.deepEqual(JSON.parse(deltas[0]!.function!.arguments!), { expression: '12+34+567' });
  });

  it('ends plain chat at its end token (finish_reason stop, no stop string matched), a call right after its closing tag, instead of writing on', async () => {
    // A product offered no tools: the call comes back as the text it wrote, and the turn ends where the call does.
    for (const content of [
      'Hello! How are you?',
      'what is 23+45?',
      'what is 23*45?',
      'Write a poem about the sea.\nMake it rhyme.',
      'What is $\\frac{1}{2}$ of 10?',
    ]) {
      const completion = await client.chat.completions.create({ model: 'gymnast-tiny-arith', messages: [{ role: 'user', content }], max_tokens: 80, seed: 1 });
      const [choice] = completion.choices as (OpenAI.ChatCompletion.Choice & { stop_reason?: unknown })[];
      const said = `${JSON.stringify(content)} → ${JSON.stringify(choice!.message.content)}`;
      assert.equal(choice!.finish_reason, 'stop', said);
      assert.equal(choice!.stop_reason, null, `ended on its own end token: ${said}`);
      if (content.includes('*')) assert.match(choice!.message.content!, /^<tool_call>.*<\/tool_call>$/, said);
    }
  });

  it('refuses an --update-deadline that is not a positive number of seconds, naming the flag, before it loads a model', async () => {
    for (const given of ['0', '-1', 'NaN', 'soon', '1e9']) {
      const run = await gymnast('serve', 'model', '--embedded', '--port', '0', '--update-deadline', given);
      assert.notEqual(run.code, 0, given);
      assert.match(run.stderr, /--update-deadline/, given);
      assert.doesNotMatch(run.stderr, /\n\s+at /, `${given}: a stack trace`);
    }
  });
});
