import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import OpenAI from 'openai';
import { SamplingParams } from '../../src/core/index.js';
import { createPolicy } from '../../src/policy/index.js';
import { correctWithProbability, startSimFleet, type StartedSimFleet } from '../../src/testing/index.js';
import { parsePrometheusText, sampleValue } from '../support/prometheus-parse.js';
import { qwen3Directory, qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = { tokenizer: await qwen3Tokenizer(), template: await qwen3Template(), source: 'Qwen3' };
const fleets: StartedSimFleet[] = [];
after(() => Promise.all(fleets.map((fleet) => fleet.close())));

/** A fleet on Qwen3's tokenizer, 1,000 simulated seconds per wall second: a 500-token reply takes about 3 ms. */
async function fleet(options: Parameters<typeof startSimFleet>[0] = {}): Promise<StartedSimFleet> {
  const started = await startSimFleet({ timeScale: 1000, seed: 1, tokenizer, ...options });
  fleets.push(started);
  return started;
}

const post = (url: string, body?: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const metricsOf = async (url: string) => parsePrometheusText(await (await fetch(`${url}/metrics`)).text());
const prompt = (text: string) => tokenizer.tokenizer.encode(text);

/** Polls `/metrics` (no sleeps: each poll is a round trip) until `ready` holds, at most 2,000 times. */
async function until(url: string, ready: (metrics: Awaited<ReturnType<typeof metricsOf>>) => boolean): Promise<void> {
  for (let poll = 0; poll < 2000; poll++) if (ready(await metricsOf(url))) return;
  assert.fail('the condition never held');
}

describe('gymnast serve sim over HTTP', () => {
  it('serves each replica on its own loopback port, listing the profile model and its context length', async () => {
    const { urls } = await fleet({ replicas: 3 });
    assert.equal(urls.length, 3);
    assert.equal(new Set(urls).size, 3);
    for (const url of urls) {
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string; max_model_len: number }[] };
      assert.deepEqual(
        models.data.map(({ id, max_model_len }) => ({ id, max_model_len })),
        [{ id: 'sim-llama-3.1-8b-h100', max_model_len: 32_768 }],
      );
    }
  });

  it('answers the openai SDK: completions on token ids and chat with return_token_ids, the ids decoding to the text', async () => {
    const { urls } = await fleet();
    const client = new OpenAI({ baseURL: `${urls[0]}/v1`, apiKey: 'unused', maxRetries: 0 });
    const ids = prompt('Tell me about the sea.');
    const completion = (await client.completions.create({
      model: 'sim-llama-3.1-8b-h100',
      prompt: ids,
      max_tokens: 64,
      seed: 3,
      return_token_ids: true,
    } as never)) as unknown as { choices: { text: string; token_ids: number[]; prompt_token_ids: number[]; finish_reason: string }[] };
    const [choice] = completion.choices;
    assert.deepEqual(choice!.prompt_token_ids, ids);
    assert.ok(choice!.token_ids.length > 0 && choice!.token_ids.length <= 64);
    assert.equal(choice!.text, tokenizer.tokenizer.decode(choice!.token_ids.filter((id) => !tokenizer.tokenizer.stopTokenIds.includes(id))));
    assert.ok(choice!.finish_reason === 'length' ? choice!.token_ids.length === 64 : choice!.token_ids.at(-1) === tokenizer.tokenizer.stopTokenIds[0]);
    const chat = (await client.chat.completions.create({
      model: 'sim-llama-3.1-8b-h100',
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 32,
      return_token_ids: true,
    } as never)) as unknown as { choices: { message: { content: string }; token_ids: number[] }[]; prompt_token_ids: number[] };
    assert.ok(chat.prompt_token_ids.length > 3);
    assert.ok(chat.choices[0]!.token_ids.length > 0);
    const refused = await post(`${urls[0]}/v1/completions`, { model: 'another-model', prompt: ids, max_tokens: 4 });
    assert.equal(refused.status, 404);
  });

  it("serves gymnast's own vllm-completions policy across the replicas, and SGLang's /generate and /tokenize", async () => {
    const { urls, reports } = await fleet({ replicas: 2 });
    const { policy } = await createPolicy({ kind: 'vllm-completions', baseUrls: urls, tokenizerDir: qwen3Directory });
    try {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          policy.generate(
            {
              session_id: `s${i}`,
              prompt_token_ids: prompt(`question ${i}`),
              messages: [],
              sampling: SamplingParams.parse({ max_tokens: 128, seed: i }),
              stop_strings: [],
              stop_token_ids: [],
            },
            new AbortController().signal,
          ),
        ),
      );
      for (const result of results) assert.ok((result.token_ids ?? []).length > 0 && result.logprobs!.length === result.token_ids!.length);
      assert.ok(
        reports().every((report) => report.requestsSubmitted > 0),
        'both replicas served',
      );
    } finally {
      await policy.close?.();
    }
    const generated = (await (await post(`${urls[0]}/generate`, { input_ids: prompt('hi'), sampling_params: { max_new_tokens: 16 } })).json()) as {
      output_ids: number[];
    };
    assert.ok(generated.output_ids.length > 0);
    const tokenized = (await (await post(`${urls[0]}/tokenize`, { prompt: 'hello world' })).json()) as { tokens: number[] };
    assert.deepEqual(tokenized.tokens, prompt('hello world'));
  });

  it('replies are the same for the same seed, whichever replica and whatever fleet serves them; a stop string cuts one where it first appears', async () => {
    const first = await fleet({ replicas: 2 });
    const again = await fleet({ replicas: 1 });
    const body = { prompt: prompt('Count the stars.'), max_tokens: 400, seed: 11, return_token_ids: true };
    const reply = async (url: string, extra = {}) =>
      (
        (await (await post(`${url}/v1/completions`, { ...body, ...extra })).json()) as {
          choices: { text: string; token_ids: number[]; finish_reason: string; stop_reason: unknown }[];
        }
      ).choices[0]!;
    const whole = await reply(first.urls[0]!);
    assert.deepEqual((await reply(first.urls[1]!)).token_ids, whole.token_ids);
    assert.deepEqual((await reply(again.urls[0]!)).token_ids, whole.token_ids);
    const stop = ' the';
    const at = whole.text.indexOf(stop);
    assert.ok(at > 0, 'the seeded reply says "the"');
    const cut = await reply(first.urls[0]!, { stop: [stop] });
    assert.equal(cut.finish_reason, 'stop');
    assert.equal(cut.stop_reason, stop);
    assert.equal(cut.text, whole.text.slice(0, at));
    assert.deepEqual(cut.token_ids, whole.token_ids.slice(0, cut.token_ids.length));
  });

  it('an answer script puts the right answer at the end of a reply with probability p', async () => {
    const solve = (text: string) =>
      /What is (\d+)\+(\d+)\?/
        .exec(text)
        ?.slice(1)
        .reduce((sum, term) => String(Number(sum) + Number(term)));
    const always = await fleet({ answer: correctWithProbability(1, solve, (answer) => ` \\boxed{${answer}}`) });
    const never = await fleet({ answer: correctWithProbability(0, solve, (answer) => ` \\boxed{${answer}}`) });
    const ask = async (url: string) =>
      (
        (await (await post(`${url}/v1/completions`, { prompt: prompt('What is 17+25?'), max_tokens: 20_000, seed: 2 })).json()) as {
          choices: { text: string }[];
        }
      ).choices[0]!.text;
    assert.match(await ask(always.urls[0]!), / \\boxed\{42\}$/);
    const wrong = await ask(never.urls[0]!);
    assert.match(wrong, / \\boxed\{\d+\}$/);
    assert.doesNotMatch(wrong, /\\boxed\{42\}$/);
  });

  it("/metrics parses as Prometheus text with vLLM's names, and its counters agree with the simulator's accounting", async () => {
    const { urls, reports } = await fleet();
    const url = urls[0]!;
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(`${url}/v1/completions`, {
          prompt: prompt(`${'You are a careful assistant who answers briefly. '.repeat(6)}Then ${i}`),
          max_tokens: 200,
          seed: i,
        }).then((response) => response.json()),
      ),
    );
    const metrics = await metricsOf(url);
    const [report] = reports();
    const labels = { model_name: 'sim-llama-3.1-8b-h100', engine: '0' };
    const types = Object.fromEntries([...metrics].map(([name, family]) => [name, family.type]));
    assert.deepEqual(types, {
      'vllm:num_requests_running': 'gauge',
      'vllm:num_requests_waiting': 'gauge',
      'vllm:kv_cache_usage_perc': 'gauge',
      'vllm:prefix_cache_queries_total': 'counter',
      'vllm:prefix_cache_hits_total': 'counter',
      'vllm:num_preemptions_total': 'counter',
      'vllm:prompt_tokens_total': 'counter',
      'vllm:generation_tokens_total': 'counter',
      'vllm:request_success_total': 'counter',
      'vllm:time_to_first_token_seconds': 'histogram',
      'vllm:inter_token_latency_seconds': 'histogram',
      'vllm:e2e_request_latency_seconds': 'histogram',
    });
    assert.equal(sampleValue(metrics, 'vllm:num_requests_running', labels), 0);
    assert.equal(sampleValue(metrics, 'vllm:prefix_cache_queries_total', labels), report!.prefixCacheQueries);
    assert.equal(sampleValue(metrics, 'vllm:prefix_cache_hits_total', labels), report!.prefixCacheHits);
    assert.ok(report!.prefixCacheHits > 0, 'the shared prefix hit');
    assert.equal(sampleValue(metrics, 'vllm:prompt_tokens_total', labels), report!.promptTokens);
    assert.equal(sampleValue(metrics, 'vllm:generation_tokens_total', labels), report!.generationTokens);
    assert.equal(sampleValue(metrics, 'vllm:num_preemptions_total', labels), report!.preemptions);
    const succeeded = ['stop', 'length', 'abort'].map((reason) => sampleValue(metrics, 'vllm:request_success_total', { ...labels, finished_reason: reason }));
    assert.deepEqual(succeeded, [report!.requestsEnded.stop, report!.requestsEnded.length, report!.requestsEnded.abort]);
    assert.equal(succeeded[0]! + succeeded[1]!, 6);
    assert.equal(sampleValue(metrics, 'vllm:time_to_first_token_seconds', labels, 'vllm:time_to_first_token_seconds_count'), 6);
    assert.equal(sampleValue(metrics, 'vllm:inter_token_latency_seconds', labels, 'vllm:inter_token_latency_seconds_count'), report!.generationTokens - 6);
    const buckets = metrics.get('vllm:inter_token_latency_seconds')!.samples.filter((sample) => sample.name.endsWith('_bucket'));
    assert.deepEqual(
      buckets.map((bucket) => bucket.value),
      [...buckets.map((bucket) => bucket.value)].sort((a, b) => a - b),
      'buckets are cumulative',
    );
    assert.equal(buckets.at(-1)!.labels.le, '+Inf');
  });

  it('POST /pause holds all generation until POST /resume; mode=wait lets requests already in finish first', async () => {
    const { urls } = await fleet();
    const url = urls[0]!;
    assert.equal((await post(`${url}/pause`)).status, 200);
    assert.deepEqual(await (await fetch(`${url}/is_paused`)).json(), { is_paused: true });
    const held = post(`${url}/v1/completions`, { prompt: prompt('held'), max_tokens: 50, seed: 1 });
    await until(url, (metrics) => sampleValue(metrics, 'vllm:num_requests_waiting') === 1);
    for (let poll = 0; poll < 20; poll++) assert.equal(sampleValue(await metricsOf(url), 'vllm:generation_tokens_total'), 0);
    assert.equal((await post(`${url}/resume`)).status, 200);
    assert.equal((await held).status, 200);
    assert.deepEqual(await (await fetch(`${url}/is_paused`)).json(), { is_paused: false });

    const inFlight = post(`${url}/v1/completions`, { prompt: prompt('in flight'), max_tokens: 2000, seed: 1 });
    await until(url, (metrics) => sampleValue(metrics, 'vllm:num_requests_running') === 1);
    const pausing = post(`${url}/pause?mode=wait`);
    assert.equal((await inFlight).status, 200, 'the request already in finishes');
    assert.equal((await pausing).status, 200);
    const after = post(`${url}/v1/completions`, { prompt: prompt('after'), max_tokens: 20, seed: 1 });
    await until(url, (metrics) => sampleValue(metrics, 'vllm:num_requests_waiting') === 1);
    await post(`${url}/resume`);
    assert.equal((await after).status, 200);
    assert.equal((await post(`${url}/pause?mode=abort`)).status, 400);
  });

  it('a client that hangs up mid-stream aborts its request: its KV blocks are freed and it counts as aborted', async () => {
    const { urls, reports } = await fleet();
    const url = urls[0]!;
    const streaming = await post(`${url}/v1/completions`, { prompt: prompt('a story'), max_tokens: 20_000, seed: 5, stream: true });
    const reader = streaming.body!.getReader();
    await reader.read();
    await reader.cancel();
    await until(url, (metrics) => sampleValue(metrics, 'vllm:request_success_total', { finished_reason: 'abort' }) === 1);
    const metrics = await metricsOf(url);
    assert.equal(sampleValue(metrics, 'vllm:num_requests_running'), 0);
    assert.equal(sampleValue(metrics, 'vllm:kv_cache_usage_perc'), 0);
    assert.equal(reports()[0]!.requestsEnded.abort, 1);
  });

  it('a replica that fails cuts its connections and answers 503 until it recovers, with its cache lost', async () => {
    const { urls, fleet: simFleet, reports } = await fleet({ replicas: 2 });
    const url = urls[1]!;
    const body = { prompt: prompt('a long shared prefix for the cache, a long shared prefix for the cache, a long one'), max_tokens: 20, seed: 1 };
    assert.equal((await post(`${url}/v1/completions`, body)).status, 200);
    const streaming = await post(`${url}/v1/completions`, { ...body, max_tokens: 20_000, stream: true });
    const reader = streaming.body!.getReader();
    await reader.read();
    assert.equal((await post(`${url}/sim/fail`)).status, 200);
    await assert.rejects(async () => {
      for (;;) if ((await reader.read()).done) throw new Error('the stream ended cleanly');
    });
    assert.equal((await fetch(`${url}/health`)).status, 503);
    assert.equal((await post(`${url}/v1/completions`, body)).status, 503);
    assert.equal((await fetch(`${urls[0]}/health`)).status, 200, 'the other replica serves on');
    assert.equal(reports()[1]!.state, 'down');
    simFleet.recover(1);
    const hitsBefore = reports()[1]!.prefixCacheHits;
    assert.equal((await post(`${url}/v1/completions`, body)).status, 200);
    assert.equal(reports()[1]!.prefixCacheHits, hitsBefore, 'the cache was lost with the replica');
    assert.equal(reports()[1]!.requestsEnded.abort, 1);
  });
});
