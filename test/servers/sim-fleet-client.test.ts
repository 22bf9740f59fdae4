import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { SamplingParams } from '../../src/core/index.js';
import { RemotePolicy, vllmCompletionsBackend } from '../../src/policy/index.js';
import { builtinProfiles } from '../../src/servers/sim/builtin-profiles.js';
import { stepSeconds } from '../../src/servers/sim/step-time.js';
import { SimFleetClient, startSimFleet, VirtualClock, type StartedSimFleet } from '../../src/testing/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = { tokenizer: await qwen3Tokenizer(), template: await qwen3Template(), source: 'Qwen3' };
const fleets: StartedSimFleet[] = [];
const policies: RemotePolicy<unknown>[] = [];
after(async () => {
  await Promise.all(policies.map((policy) => policy.close()));
  await Promise.all(fleets.map((fleet) => fleet.close()));
});

async function setup(replicas: number) {
  const clock = new VirtualClock();
  const started = await startSimFleet({ replicas, clock, tokenizer, seed: 5 });
  fleets.push(started);
  const client = new SimFleetClient(started.fleet);
  const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: started.urls, tokenizer: tokenizer.tokenizer, client, retry: { baseDelayMs: 1 } });
  policies.push(policy);
  return { clock, started, client, policy };
}

const request = (session: string, text: string, maxTokens: number) => ({
  session_id: session,
  prompt_token_ids: tokenizer.tokenizer.encode(text),
  messages: [],
  sampling: SamplingParams.parse({ max_tokens: maxTokens, seed: 1 }),
  stop_strings: [],
  stop_token_ids: [],
});

describe('SimFleetClient: a fleet answered in this process, on its virtual clock', () => {
  it("gives gymnast's policy the replica's answers, in exactly the simulated time the profile's step model says", async () => {
    const { clock, started, policy } = await setup(1);
    const prompt = request('s', 'How far is the moon from the earth?', 50);
    const result = await policy.generate(prompt, new AbortController().signal);
    assert.equal(result.token_ids?.length, 50, 'max_tokens cuts the reply');
    const { stepTime } = builtinProfiles['llama-3.1-8b-h100']!;
    // The prefill step yields the first token; then one decode step per token.
    const expected = stepSeconds(stepTime, prompt.prompt_token_ids.length, 0) + 49 * stepSeconds(stepTime, 0, 1);
    assert.ok(Math.abs(clock.now() - expected) < 1e-9, `${clock.now()} simulated seconds, expected ${expected}`);
    assert.equal(started.reports()[0]!.generationTokens, 50);
  });

  it("serves each replica's /metrics text with vLLM's names", async () => {
    const { started, client, policy } = await setup(2);
    await policy.generate(request('s', 'hello there', 10), new AbortController().signal);
    const reply = await client.exchange({ method: 'GET', baseUrl: started.urls[0]!, path: '/metrics', timeoutMs: 1000 });
    assert.equal(reply.status, 200);
    assert.match(reply.text, /^vllm:generation_tokens_total\{engine="0",model_name="sim-llama-3.1-8b-h100"\} 10\.0$/m);
    assert.match(reply.text, /^vllm:num_requests_waiting\{/m);
  });

  it('resets the calls a failing replica was answering, as a cut connection: the router retries them elsewhere', async () => {
    const { clock, started, policy } = await setup(2);
    const long = policy.generate(request('a', 'a long answer please', 2000), new AbortController().signal);
    await clock.sleepUntil(1);
    const replica = started.reports().findIndex((report) => report.running === 1);
    started.fleet.fail(replica);
    const result = await long;
    assert.equal(started.reports()[replica]!.requestsEnded.abort, 1);
    assert.equal(started.reports()[1 - replica]!.generationTokens, result.token_ids?.length, 'answered in full by the other replica');
  });
});
