import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InferenceServer, type Tokenization } from '../../src/testing/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
const template = await qwen3Template();
const IM_END = 151_645;
const reply = 'The answer is four, since two and two make four.';
const messages = [{ role: 'user', content: 'What is 2+2?' }];

async function withServer<T>(tokenization: Tokenization | undefined, flavor: 'vllm' | 'sglang', use: (url: string) => Promise<T>): Promise<T> {
  const server = new InferenceServer({ tokenizer, template, flavor, respond: () => reply, ...(tokenization ? { tokenization } : {}) });
  const url = await server.start();
  try {
    return await use(url);
  } finally {
    await server.close();
  }
}

async function post<T>(url: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as T;
}

/** Each `data:` payload of a server-sent stream but `[DONE]`, parsed. */
async function streamed<T>(url: string, path: string, body: Record<string, unknown>): Promise<T[]> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const events = (await response.text()).split('\n\n').filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]');
  return events.map((event) => JSON.parse(event.slice('data: '.length)) as T);
}

interface Sampled {
  ids: number[];
  logprobs: number[];
}
interface CompletionChoice {
  text: string;
  token_ids: number[];
  logprobs: { tokens: string[]; token_logprobs: number[] };
}
interface ChatChoice {
  message: { content: string };
  token_ids: number[];
  logprobs: { content: { token: string; logprob: number }[] };
}
interface Generated {
  text: string;
  output_ids: number[];
  meta_info: { output_token_logprobs: [number, number, null][] };
}
interface StreamChunk {
  choices: { token_ids?: number[]; logprobs: { token_logprobs?: number[]; content?: { logprob: number }[] } | null }[];
}

const labelled = (labels: readonly string[]) => labels.map((label) => Number(/^token_id:(\d+)$/.exec(label)![1]));

/** What each route and its stream say was sampled for the same prompt and seed, as ids and logprobs, with the text beside. */
async function everyRoute(url: string, seed: number | undefined): Promise<{ text: string; promptIds: number[]; routes: Record<string, Sampled> }> {
  const seeded = seed === undefined ? {} : { seed };
  const { tokens: promptIds } = await post<{ tokens: number[] }>(url, '/tokenize', { messages });
  const completion = {
    prompt: promptIds,
    max_tokens: 64,
    logprobs: 0,
    return_token_ids: true,
    return_tokens_as_token_ids: true,
    skip_special_tokens: false,
    ...seeded,
  };
  const chat = { messages, max_tokens: 64, logprobs: true, return_token_ids: true, return_tokens_as_token_ids: true, ...seeded };
  const completed = (await post<{ choices: CompletionChoice[] }>(url, '/v1/completions', completion)).choices[0]!;
  const chatted = (await post<{ choices: ChatChoice[] }>(url, '/v1/chat/completions', chat)).choices[0]!;
  const generated = await post<Generated>(url, '/generate', {
    input_ids: promptIds,
    return_logprob: true,
    sampling_params: { max_new_tokens: 64, skip_special_tokens: false, ...(seed === undefined ? {} : { sampling_seed: seed }) },
  });
  // The Responses API takes no seed: it samples as an unseeded request does.
  const responded =
    seed === undefined
      ? (
          await post<{ output: { generation_token_ids: number[]; generation_log_probs: number[] }[] }>(url, '/v1/responses', {
            input: messages,
            max_output_tokens: 64,
          })
        ).output.at(-1)!
      : undefined;
  const completionChunks = await streamed<StreamChunk>(url, '/v1/completions', completion);
  const chatChunks = await streamed<StreamChunk>(url, '/v1/chat/completions', chat);
  const joined = (chunks: StreamChunk[], logprobs: (chunk: StreamChunk) => number[]) => ({
    ids: chunks.flatMap((chunk) => chunk.choices[0]?.token_ids ?? []),
    logprobs: chunks.flatMap(logprobs),
  });
  return {
    text: completed.text,
    promptIds,
    routes: {
      completions: { ids: completed.token_ids, logprobs: completed.logprobs.token_logprobs },
      'completions logprobs labels': { ids: labelled(completed.logprobs.tokens), logprobs: completed.logprobs.token_logprobs },
      chat: { ids: chatted.token_ids, logprobs: chatted.logprobs.content.map((entry) => entry.logprob) },
      'chat logprobs labels': {
        ids: labelled(chatted.logprobs.content.map((entry) => entry.token)),
        logprobs: chatted.logprobs.content.map((entry) => entry.logprob),
      },
      'generate output_ids': { ids: generated.output_ids, logprobs: generated.meta_info.output_token_logprobs.map(([logprob]) => logprob) },
      'generate output_token_logprobs': {
        ids: generated.meta_info.output_token_logprobs.map(([, id]) => id),
        logprobs: generated.meta_info.output_token_logprobs.map(([logprob]) => logprob),
      },
      'completions stream': joined(completionChunks, (chunk) => chunk.choices[0]?.logprobs?.token_logprobs ?? []),
      'chat stream': joined(chatChunks, (chunk) => (chunk.choices[0]?.logprobs?.content ?? []).map((entry) => entry.logprob)),
      ...(responded ? { 'responses training fields': { ids: responded.generation_token_ids, logprobs: responded.generation_log_probs } } : {}),
    },
  };
}

describe("the test inference server's tokenization", () => {
  it('non-canonical: every route and stream reports the same ids and logprobs, which decode to the reply but are not encode(reply), a distinct logprob per position', async () => {
    await withServer('non-canonical', 'vllm', async (url) => {
      const { text, routes } = await everyRoute(url, 7);
      const { ids, logprobs } = routes.completions!;
      for (const [route, sampled] of Object.entries(routes)) assert.deepEqual(sampled, { ids, logprobs }, route);
      assert.equal(text, `${reply}<|im_end|>`);
      assert.equal(tokenizer.decode(ids), text);
      assert.equal(ids.at(-1), IM_END, 'the stop token stays whole');
      assert.notDeepEqual(ids, tokenizer.encode(text));
      assert.ok(ids.length > tokenizer.encode(text).length);
      assert.equal(new Set(logprobs).size, logprobs.length);
    });
  });

  it("non-canonical on the SGLang flavour too, unseeded, the Responses API's training fields included", async () => {
    await withServer('non-canonical', 'sglang', async (url) => {
      const { text, routes } = await everyRoute(url, undefined);
      assert.ok('responses training fields' in routes);
      const { ids, logprobs } = routes.completions!;
      for (const [route, sampled] of Object.entries(routes)) assert.deepEqual(sampled, { ids, logprobs }, route);
      assert.equal(tokenizer.decode(ids), text);
      assert.notDeepEqual(ids, tokenizer.encode(text));
    });
  });

  it('non-canonical is deterministic per seed: the same seed spells the reply the same on another server, another seed otherwise', async () => {
    const spelled = (seed: number) => withServer('non-canonical', 'vllm', async (url) => (await everyRoute(url, seed)).routes.completions!.ids);
    const [first, again, other] = [await spelled(7), await spelled(7), await spelled(8)];
    assert.deepEqual(again, first);
    assert.notDeepEqual(other, first);
    assert.equal(tokenizer.decode(other), tokenizer.decode(first));
  });

  it('canonical by default: the ids are encode(reply)', async () => {
    await withServer(undefined, 'vllm', async (url) => {
      const { text, routes } = await everyRoute(url, 7);
      assert.deepEqual(routes.completions!.ids, tokenizer.encode(text));
      assert.deepEqual(routes['chat stream']!.ids, tokenizer.encode(text));
    });
  });
});
