import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EpisodeTask, SamplingParams } from '../../src/core/index.js';
import { runGroups } from '../../src/engine/index.js';
import { arithmeticEnvironment, arithmeticPrompt } from '../../src/environments/index.js';
import { createPolicy } from '../../src/policy/create-policy.js';
import { EmbeddedPolicy, embeddedModelDirectory } from '../../src/policy/embedded/embedded-policy.js';
import { GptModel } from '../../src/policy/embedded/gpt-model.js';
import { embeddedModelServer } from '../../src/servers/openai-compatible/embedded-model-server.js';
import { writeCheckpoint } from '../../src/train/write-checkpoint.js';
import type { HfTokenizer, Tokenizer } from '../../src/tokens/index.js';

const KEY = 'sk-weights';
const loaded = await EmbeddedPolicy.load();
// No end token: a generation runs to max_tokens, long enough to be caught decoding by an update.
const committed = loaded.tokenizer;
const endless: Tokenizer & Pick<HfTokenizer, 'config'> = {
  config: committed.config,
  encode: (text) => committed.encode(text),
  decode: (ids) => committed.decode(ids),
  stopTokenIds: [],
  vocabSize: committed.vocabSize!,
  maxCharsPerToken: committed.maxCharsPerToken!,
};
const policy = new EmbeddedPolicy(loaded.model, endless);
const server = embeddedModelServer(policy, { apiKey: KEY, updateDeadlineMs: 5_000 });
const url = await server.start();
const impatient = new EmbeddedPolicy(GptModel.fromBytes(loaded.model.config, loaded.model.toBytes()), endless);
const impatientServer = embeddedModelServer(impatient, { updateDeadlineMs: 1 });
const impatientUrl = await impatientServer.start();
const folder = await mkdtemp(join(tmpdir(), 'gymnast-weights-'));
after(async () => {
  await server.close();
  await impatientServer.close();
  await rm(folder, { recursive: true, force: true });
});

/** A checkpoint whose weights differ from the committed ones, as `gymnast train` writes it. */
const trained = GptModel.fromBytes(loaded.model.config, loaded.model.toBytes());
trained.params[0]! += 0.5;
const checkpoint = await writeCheckpoint(join(folder, 'step-1'), trained, { name: 'spec' });

async function call(base: string, method: 'GET' | 'POST', path: string, body?: unknown, key: string | null = KEY) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function longGeneration(target: EmbeddedPolicy, signal: AbortSignal) {
  const prompt = committed.encode('What is 12*7?');
  const request = {
    session_id: 's',
    prompt_token_ids: prompt,
    messages: [],
    stop_strings: [],
    stop_token_ids: [],
    sampling: SamplingParams.parse({ max_tokens: 200, seed: 3 }),
  };
  return target.generate(request, signal);
}

describe('POST /update_weights on the served embedded model', () => {
  it('is behind the bearer token, and names the field of a bad request', async () => {
    assert.equal((await call(url, 'POST', '/update_weights', { checkpoint }, null)).status, 401);
    assert.equal((await call(url, 'GET', '/policy_version', undefined, null)).status, 401);
    for (const body of [{}, { checkpoint: 3 }, { checkpoint: join(folder, 'missing') }, { checkpoint: folder }]) {
      const answer = await call(url, 'POST', '/update_weights', body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal((answer.body.error as { param: string }).param, 'checkpoint');
    }
    assert.equal((await call(url, 'POST', '/update_weights', { checkpoint, extra: 1 })).status, 400);
    assert.deepEqual((await call(url, 'GET', '/policy_version')).body, { policy_version: 0 });
  });

  it('lets a generation decoding on the old weights finish on them, then loads the new ones and answers the new version', async () => {
    const inFlight = longGeneration(policy, new AbortController().signal);
    let finished = false;
    void inFlight.then(() => (finished = true));
    const answer = await call(url, 'POST', '/update_weights', { checkpoint });
    assert.ok(finished, 'the update answered before the generation on the old weights ended');
    assert.equal((await inFlight).policy_version, 0);
    assert.equal((await inFlight).token_ids.length, 200);
    assert.deepEqual(answer, { status: 200, body: { policy_version: 1 } });
    assert.deepEqual(policy.model.params, trained.params);
    assert.deepEqual((await call(url, 'GET', '/policy_version')).body, { policy_version: 1 });
    assert.equal((await longGeneration(policy, new AbortController().signal)).policy_version, 1);
  });

  it('past its deadline answers 503 and leaves the weights and the version as they were', async () => {
    const abort = new AbortController();
    const inFlight = longGeneration(impatient, abort.signal).catch(() => undefined);
    const answer = await call(impatientUrl, 'POST', '/update_weights', { checkpoint });
    assert.equal(answer.status, 503);
    assert.equal((answer.body.error as { code: string }).code, 'update_deadline');
    assert.equal(impatient.version, 0);
    assert.notDeepEqual(impatient.model.params, trained.params);
    abort.abort();
    await inFlight;
  });

  for (const kind of ['vllm-completions', 'vllm-chat', 'sglang-chat', 'sglang-generate'] as const) {
    it(`reports the version on each answer, and a ${kind} policy records it on its turns`, async () => {
      const remote = await createPolicy({ kind, baseUrls: [url], tokenizerDir: embeddedModelDirectory, apiKey: KEY });
      try {
        const task = EpisodeTask.parse({ id: 't', index: 0, messages: arithmeticPrompt({ problem: '12*7' }), data: { problem: '12*7', answer: 84 } });
        const options = {
          policy: remote.policy,
          renderer: remote.renderer,
          environment: arithmeticEnvironment(),
          maxTurns: 2,
          maxSeqLen: remote.maxModelLen,
          sampling: SamplingParams.parse({ max_tokens: 16, seed: 1 }),
        };
        const turns = [];
        for await (const group of runGroups([task], options, { groupSize: 1 })) turns.push(...group.records.flatMap((record) => record.turns));
        assert.ok(turns.length > 0, 'the episode took no turn');
        assert.deepEqual(new Set(turns.map((turn) => turn.policy_version)), new Set([1]));
        assert.equal(policy.version, 1);
      } finally {
        await remote.policy.close();
      }
    });
  }

  it("names the version on a streamed choice's last chunk, for completions and chat", async () => {
    const prompt = committed.encode('What is 12*7?');
    const bodies = {
      '/v1/completions': { model: 'gymnast-tiny-arith', prompt, max_tokens: 4, stream: true },
      '/v1/chat/completions': { model: 'gymnast-tiny-arith', messages: [{ role: 'user', content: 'What is 12*7?' }], max_tokens: 4, stream: true },
    };
    for (const [path, body] of Object.entries(bodies)) {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify(body),
      });
      const chunks = (await response.text())
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice(6)) as { choices: Record<string, unknown>[] });
      const last = chunks.map((chunk) => chunk.choices[0]!).find((choice) => choice.finish_reason !== null);
      assert.equal(last?.policy_version, 1, `${path}: ${JSON.stringify(last)}`);
      assert.ok(
        chunks.filter((chunk) => chunk.choices[0]!.finish_reason === null).every((chunk) => !('policy_version' in chunk.choices[0]!)),
        `${path}: a chunk before the last names a version`,
      );
    }
  });
});
