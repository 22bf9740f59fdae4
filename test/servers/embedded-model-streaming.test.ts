import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, describe, it } from 'node:test';
import OpenAI from 'openai';
import { EmbeddedPolicy } from '../../src/policy/embedded/embedded-policy.js';
import { EMBEDDED_MODEL_NAME } from '../../src/servers/openai-compatible/embedded-model-server.js';
import { policyGenerator, type Generator } from '../../src/servers/openai-compatible/generator.js';
import { OpenAiCompatibleServer } from '../../src/servers/openai-compatible/openai-compatible-server.js';
import { JinjaChatTemplate, type HfTokenizer, type Tokenizer } from '../../src/tokens/index.js';

// The committed embedded model behind the OpenAI-compatible server, as `serve model --embedded` runs
// it, with one change: its tokenizer names no end token, so every answer runs to max_tokens (the model
// ends a sum after three tokens) and a 100-token answer can be asked for.
const loaded = await EmbeddedPolicy.load();
const committed = loaded.tokenizer as HfTokenizer;
const endless: Tokenizer = {
  encode: (text) => committed.encode(text),
  decode: (ids) => committed.decode(ids),
  stopTokenIds: [],
  vocabSize: committed.vocabSize!,
  maxCharsPerToken: committed.maxCharsPerToken!,
};
const policy = new EmbeddedPolicy(loaded.model, endless);

/** Each generation as the server drives it: how many tokens the generator has sampled so far, and whether it has stopped. */
interface Watched {
  sampled: number;
  stopped: Promise<void>;
}
const generations: Watched[] = [];
/** The embedded generator, counting the tokens it hands out: the clock the specs below read, rather than wall time. */
function watched(generate: Generator): Generator {
  return async function* (request, signal) {
    let stop!: () => void;
    const generation: Watched = { sampled: 0, stopped: new Promise((resolve) => (stop = resolve)) };
    generations.push(generation);
    const tokens = generate(request, signal);
    try {
      for (let step = await tokens.next(); ; step = await tokens.next()) {
        if (step.done) return step.value;
        generation.sampled += 1;
        yield step.value;
      }
    } finally {
      await tokens.return(undefined as never);
      stop();
    }
  };
}
const server = new OpenAiCompatibleServer({
  tokenizer: endless,
  template: JinjaChatTemplate.fromConfig(committed.config),
  generate: watched(policyGenerator(policy, endless)),
  model: EMBEDDED_MODEL_NAME,
  maxModelLen: policy.maxModelLen,
});
const url = await server.start();
after(async () => {
  await server.close();
  await policy.close();
});

const TOKENS = 100;
const routes = {
  chat: {
    path: '/v1/chat/completions',
    body: { messages: [{ role: 'user', content: 'what is 23+45?' }], max_tokens: TOKENS, seed: 5, stream: true },
    text: (event: Event) => event.choices?.[0]?.delta?.content,
  },
  completions: {
    path: '/v1/completions',
    body: { prompt: '<|user|>what is 7*8?<|end|><|assistant|>', max_tokens: TOKENS, seed: 5, stream: true },
    text: (event: Event) => event.choices?.[0]?.text,
  },
  responses: {
    path: '/v1/responses',
    body: { input: 'what is 23+45?', max_output_tokens: TOKENS, stream: true },
    text: (event: Event) => (event.type === 'response.output_text.delta' ? event.delta : undefined),
  },
};
interface Event {
  type?: string;
  delta?: string;
  choices?: { delta?: { content?: string }; text?: string }[];
}

/**
 * Streams a request with node's own client, whose `data` events fire as bytes arrive, and notes for
 * each event carrying text how many tokens the generator had sampled when it arrived. `leaveAfter`
 * hangs up after that many text events.
 */
function stream(
  path: string,
  body: object,
  text: (event: Event) => string | undefined,
  leaveAfter = Infinity,
): Promise<{ sampledAt: number[]; texts: string[] }> {
  const sampledAt: number[] = [];
  const texts: string[] = [];
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (response) => {
      assert.equal(response.statusCode, 200);
      let buffered = '';
      response.setEncoding('utf8');
      response.on('data', (data: string) => {
        buffered += data;
        const events = buffered.split('\n\n');
        buffered = events.pop()!;
        for (const event of events) {
          const json = event.split('\n').find((line) => line.startsWith('data: {'));
          const piece = json === undefined ? undefined : text(JSON.parse(json.slice('data: '.length)) as Event);
          if (!piece) continue;
          sampledAt.push(generations.at(-1)!.sampled);
          texts.push(piece);
          if (texts.length >= leaveAfter) {
            request.destroy();
            resolve({ sampledAt, texts });
          }
        }
      });
      response.on('end', () => resolve({ sampledAt, texts }));
    });
    request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
    request.end(JSON.stringify(body));
  });
}

describe('the embedded model server streams each token as it is sampled', () => {
  for (const [name, route] of Object.entries(routes)) {
    it(`${name}: the first text of a ${TOKENS}-token answer arrives before the generator has sampled a tenth of it, and every token within a few of being sampled`, async () => {
      const { sampledAt, texts } = await stream(route.path, route.body, route.text);
      assert.equal(generations.at(-1)!.sampled, TOKENS);
      assert.ok(texts.length > TOKENS / 2, `${texts.length} text events`);
      assert.ok(sampledAt[0]! <= TOKENS / 10, `the first text arrived when ${sampledAt[0]} of ${TOKENS} tokens were sampled`);
      // A text event carries one token's text (or a few, for a token whose text waits on the next): never a backlog.
      sampledAt.forEach((sampled, index) => assert.ok(sampled <= index + 1 + TOKENS / 10, `text event ${index} arrived when ${sampled} tokens were sampled`));
    });
  }

  it('stops sampling when the client hangs up mid-stream', async () => {
    for (const route of Object.values(routes)) {
      await stream(route.path, route.body, route.text, 3);
      const generation = generations.at(-1)!;
      await generation.stopped;
      assert.ok(generation.sampled < TOKENS / 2, `${generation.sampled} of ${TOKENS} tokens were sampled for a client that left after 3`);
    }
    const after = await fetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'what is 2+2?', max_tokens: 4 }),
    });
    assert.equal(after.status, 200, 'the server serves on');
  });

  it('streams through the openai client as sampled, and what it streams is exactly the unstreamed answer: one generation path', async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const asked = { model: EMBEDDED_MODEL_NAME, messages: [{ role: 'user' as const, content: 'what is 12+34?' }], max_tokens: TOKENS, seed: 9 };
    const whole = await client.chat.completions.create({ ...asked, logprobs: true });
    let text = '';
    const logprobs: number[] = [];
    let firstAt: number | undefined;
    for await (const chunk of await client.chat.completions.create({ ...asked, logprobs: true, stream: true })) {
      const piece = chunk.choices[0]?.delta.content;
      if (piece) firstAt ??= generations.at(-1)!.sampled;
      text += piece ?? '';
      logprobs.push(...(chunk.choices[0]?.logprobs?.content ?? []).map((entry) => entry.logprob));
    }
    assert.ok(firstAt! <= TOKENS / 10, `the client saw the first text when ${firstAt} of ${TOKENS} tokens were sampled`);
    assert.equal(text, whole.choices[0]!.message.content);
    assert.deepEqual(
      logprobs,
      whole.choices[0]!.logprobs!.content!.map((entry) => entry.logprob),
    );
  });
});
