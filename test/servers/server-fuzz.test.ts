import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import type { Generator } from '../../src/servers/openai-compatible/generator.js';
import { OpenAiCompatibleServer } from '../../src/servers/openai-compatible/openai-compatible-server.js';
import { InferenceServer } from '../../src/testing/index.js';
import type { Tokenizer } from '../../src/tokens/index.js';
import { qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';
import { within } from '../support/within.js';

// Small limits keep every case quick: a 2 MiB body limit and a 4096-token context, so no text over
// 4096 × 256 characters (Qwen3's bound) can fit.
const MAX_BODY = 2 * 1024 * 1024;
const MAX_MODEL_LEN = 4096;

const qwen3 = await qwen3Tokenizer();
/** The real tokenizer, noting the length of every text it is asked to encode. */
const encoded: number[] = [];
const watched: Tokenizer = {
  encode: (text) => {
    encoded.push(text.length);
    return qwen3.encode(text);
  },
  decode: (ids) => qwen3.decode(ids),
  stopTokenIds: qwen3.stopTokenIds,
  vocabSize: qwen3.vocabSize,
  maxCharsPerToken: qwen3.maxCharsPerToken!,
};
const server = new InferenceServer({ tokenizer: watched, template: await qwen3Template(), maxModelLen: MAX_MODEL_LEN, maxBodyBytes: MAX_BODY });
const url = await server.start();
const { hostname, port } = new URL(url);

/**
 * A generator that waits to be told to stop: a stand-in for a long decode. It tells `decoding` when
 * it starts (`start`) and when it is stopped (`abort`, with the reason). It fails on the prompt [7].
 */
const decoding = new EventEmitter();
const slow: Generator = async function* (request, signal) {
  if (request.promptIds.join() === '7') throw new Error('the decoder failed');
  decoding.emit('start');
  return await new Promise<never>((_resolve, reject) =>
    signal.addEventListener(
      'abort',
      () => {
        decoding.emit('abort', signal.reason);
        reject(signal.reason);
      },
      { once: true },
    ),
  );
};
const slowServer = new OpenAiCompatibleServer({ tokenizer: qwen3, template: await qwen3Template(), generate: slow });
const slowUrl = new URL(await slowServer.start());

after(async () => {
  await Promise.all([server.close(), slowServer.close()]);
});

interface Answer {
  status: number;
  body: { error?: { message: string; type: string; param: string | null; code: string | null }; choices?: { text: string }[] };
}

async function post(path: string, body: unknown, target = url): Promise<Answer> {
  const response = await fetch(`${target}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

/** The server still serves a good request exactly, after whatever came before. */
async function assertServes(): Promise<void> {
  const answer = await post('/v1/completions', { prompt: 'What is 2+2?', max_tokens: 8, seed: 1 });
  assert.equal(answer.status, 200);
  assert.ok(answer.body.choices![0]!.text.length > 0);
}

/** Sends raw bytes, then ends or destroys the socket; resolves with whatever the server sent back. */
function raw(bytes: string, then: 'end' | 'destroy', target: { hostname: string; port: string } = { hostname, port }): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(Number(target.port), target.hostname);
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
    socket.write(bytes, () => setTimeout(() => (then === 'end' ? socket.end() : socket.destroy()), 20));
  });
}

const head = (path: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

/**
 * Streams `total` bytes from one reused 64 KiB buffer (nothing large is held client-side), with a
 * content-length or chunked, until the server answers; resolves with the status and how many bytes
 * had been sent when the answer came.
 */
function upload(total: number, declared: boolean): Promise<{ status: number; sent: number; body: Answer['body'] }> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { hostname, port, method: 'POST', path: '/v1/completions', agent: false, headers: declared ? { 'content-length': total } : {} },
      (response) => {
        const sentWhenAnswered = sent;
        let text = '';
        response.on('data', (data) => (text += data));
        response.on('end', () => resolve({ status: response.statusCode!, sent: sentWhenAnswered, body: JSON.parse(text) as Answer['body'] }));
        answered = true;
      },
    );
    let answered = false;
    let sent = 0;
    request.on('error', (error) => (answered ? undefined : reject(error)));
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once('drain', pump);
      }
      if (!answered) request.end();
    };
    pump();
  });
}

describe('the inference server under malformed and hostile requests', () => {
  it("answers malformed JSON with a 400 in OpenAI's error shape that says so (it used to read as no body)", async () => {
    const answer = await post('/v1/completions', '{"prompt": "hi", ');
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error!.type, 'invalid_request_error');
    assert.match(answer.body.error!.message, /not valid JSON/);
    await assertServes();
  });

  it('survives bodies cut short: a content-length larger than what came, then the socket ends or resets', async () => {
    const body = '{"prompt": "What is 2+2?", "max_tokens": 8}';
    await raw(head('/v1/completions', 1000) + body, 'end');
    await raw(head('/v1/completions', 1000) + body, 'destroy');
    await raw(`${head('/v1/chat/completions', 50_000)}{"messages": [{"role": "user", "content": "`, 'destroy');
    await assertServes();
  });

  it('refuses a body over the limit with 413 and a JSON error, whether it declares its length or comes chunked', async () => {
    const declared = await upload(MAX_BODY + 1, true);
    const chunked = await upload(MAX_BODY * 3, false);
    for (const answer of [declared, chunked]) {
      assert.equal(answer.status, 413);
      assert.equal(answer.body.error!.code, 'request_too_large');
      assert.match(answer.body.error!.message, new RegExp(`limit of ${MAX_BODY} bytes`));
    }
    await assertServes();
  });

  it('refuses a 100 MB body long before it is all sent, without buffering it', async () => {
    const before = process.memoryUsage().rss;
    const declared = await upload(100 * 1024 * 1024, true);
    const chunked = await upload(100 * 1024 * 1024, false);
    const grown = process.memoryUsage().rss - before;
    assert.deepEqual([declared.status, chunked.status], [413, 413]);
    // The answer came while most of the body was still to send (a server that read it all would answer
    // only after the last byte): what is in flight is the limit and the socket buffers, megabytes.
    const total = 100 * 1024 * 1024;
    assert.ok(
      declared.sent < total / 4 && chunked.sent < total / 4,
      `413 after ${declared.sent} bytes (declared) and ${chunked.sent} bytes (chunked) of ${total}`,
    );
    assert.ok(grown < 100 * 1024 * 1024, `RSS grew by ${(grown / 1024 / 1024).toFixed(0)} MiB`);
    await assertServes();
  });

  it('refuses text that cannot fit the context before encoding it: completions, chat, tokenize', async () => {
    const huge = 'a'.repeat(MAX_MODEL_LEN * qwen3.maxCharsPerToken! + 1);
    encoded.length = 0;
    const answers = [
      await post('/v1/completions', { prompt: huge, max_tokens: 8 }),
      await post('/v1/chat/completions', { messages: [{ role: 'user', content: huge }], max_tokens: 8 }),
      await post('/tokenize', { prompt: huge }),
      await post('/tokenize', { messages: [{ role: 'user', content: huge }] }),
    ];
    for (const answer of answers) {
      assert.equal(answer.status, 400);
      assert.match(answer.body.error!.message, new RegExp(`maximum context length is ${MAX_MODEL_LEN} tokens`));
    }
    assert.ok(
      encoded.every((length) => length < huge.length),
      'the huge text was encoded',
    );
    await assertServes();
  });

  it('refuses token ids outside the vocabulary, naming the field and the index', async () => {
    const vocab = qwen3.vocabSize!;
    const cases: [string, unknown, RegExp][] = [
      ['/v1/completions', { prompt: [1, 2, vocab], max_tokens: 4 }, new RegExp(`prompt\\[2\\] is ${vocab}.*0 to ${vocab - 1}`)],
      ['/v1/completions', { prompt: [-1, 2], max_tokens: 4 }, /prompt\[0\] is -1/],
      ['/v1/completions', { prompt: [1, 2], max_tokens: 4, stop_token_ids: [5, 10 ** 9] }, /stop_token_ids\[1\] is 1000000000/],
      ['/generate', { input_ids: [1, -7], sampling_params: { max_new_tokens: 4 } }, /input_ids\[1\] is -7/],
      ['/detokenize', { tokens: [vocab + 5] }, new RegExp(`tokens\\[0\\] is ${vocab + 5}`)],
      ['/v1/completions', { prompt: [1.5], max_tokens: 4 }, /prompt/],
    ];
    for (const [path, body, message] of cases) {
      const answer = await post(path, body);
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.match(answer.body.error!.message, message);
    }
    await assertServes();
  });

  it('refuses an empty prompt and out-of-range sampling parameters, naming them', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['/v1/completions', { prompt: [], max_tokens: 4 }, /prompt is empty/],
      ['/v1/completions', { prompt: '', max_tokens: 4 }, /prompt is empty/],
      ['/generate', { input_ids: [] }, /prompt is empty/],
      ['/v1/completions', { prompt: 'hi', top_p: -0.5 }, /top_p/],
      ['/v1/completions', { prompt: 'hi', top_p: 0 }, /top_p/],
      ['/v1/completions', { prompt: 'hi', top_p: 1.5 }, /top_p/],
      ['/v1/completions', { prompt: 'hi', top_k: -2 }, /top_k/],
      ['/v1/completions', { prompt: 'hi', top_k: 2.5 }, /top_k/],
      ['/v1/completions', { prompt: 'hi', temperature: -1 }, /temperature/],
      ['/v1/completions', { prompt: 'hi', max_tokens: 0 }, /max_tokens/],
      ['/v1/completions', { prompt: 'hi', n: 0 }, /\bn\b/],
      ['/v1/completions', { prompt: 'hi', seed: 0.5 }, /seed/],
      ['/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], top_p: -1 }, /top_p/],
      ['/generate', { input_ids: [1], sampling_params: { top_k: -5 } }, /top_k/],
    ];
    for (const [path, body, message] of cases) {
      const answer = await post(path, body);
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.equal(answer.body.error!.type, 'invalid_request_error');
      assert.match(answer.body.error!.message, message);
    }
    for (const top_k of [-1, 0, 5]) assert.equal((await post('/v1/completions', { prompt: 'hi', top_k, top_p: 1, max_tokens: 4 })).status, 200);
    await assertServes();
  });

  it('stops generating for a client that went away mid-generation', async () => {
    const body = JSON.stringify({ prompt: 'What is 2+2?', max_tokens: 8 });
    const started = once(decoding, 'start');
    const socket = connect(Number(slowUrl.port), slowUrl.hostname);
    socket.on('error', () => {});
    socket.write(`POST /v1/completions HTTP/1.1\r\nHost: ${slowUrl.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    await within(started, 20_000, 'the decode starting');
    const stopped = once(decoding, 'abort');
    socket.destroy();
    const [reason] = (await within(stopped, 20_000, 'the decode stopping once its client went away')) as [Error];
    assert.match(reason.message, /client went away/);
  });

  it('answers an unexpected failure with a 500 carrying the message, never the stack', async () => {
    const answer = (await post('/v1/completions', { prompt: [7], max_tokens: 4 }, slowUrl.origin)) as unknown as {
      status: number;
      body: { error: { message: string } };
    };
    assert.equal(answer.status, 500);
    assert.equal(answer.body.error.message, 'the decoder failed');
    assert.doesNotMatch(JSON.stringify(answer.body), /\bat .*\.ts:\d+/);
  });

  it('stays up and answers correctly through many concurrent mixed requests, memory bounded', async () => {
    const before = process.memoryUsage().rss;
    // The same answer every time, all but the per-response id and clock.
    const good = () =>
      post('/v1/completions', { prompt: 'What is 2+2?', max_tokens: 8, seed: 1 }).then(({ status, body }) => ({ status, choices: body.choices }));
    const expected = await good();
    const mixed = Array.from({ length: 60 }, (_, i) => {
      switch (i % 6) {
        case 0:
          return good().then((answer) => assert.deepEqual(answer, expected));
        case 1:
          return post('/v1/completions', '{"prompt": [1, 2').then((answer) => assert.equal(answer.status, 400));
        case 2:
          return raw(`${head('/v1/completions', 10_000)}{"prompt": "What`, i % 4 === 0 ? 'end' : 'destroy');
        case 3:
          return upload(MAX_BODY * 2, i % 4 === 1).then((answer) => assert.equal(answer.status, 413));
        case 4:
          return post('/generate', { input_ids: [qwen3.vocabSize!], sampling_params: { max_new_tokens: 4 } }).then((answer) =>
            assert.equal(answer.status, 400),
          );
        default:
          return post('/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, top_k: 3 }).then((answer) =>
            assert.equal(answer.status, 200),
          );
      }
    });
    await Promise.all(mixed);
    assert.deepEqual(await good(), expected);
    const grown = process.memoryUsage().rss - before;
    assert.ok(grown < 150 * 1024 * 1024, `RSS grew by ${(grown / 1024 / 1024).toFixed(0)} MiB`);
  });
});
