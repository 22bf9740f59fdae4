import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type EpisodeRecord, type FailureRecord, type RolloutRecord, SamplingParams } from '../../src/core/index.js';
import { ContextLengthError } from '../../src/core/errors/context-length-error.js';
import { runEpisode, type EpisodeOptions } from '../../src/engine/index.js';
import type { PolicyResultInput } from '../../src/core/index.js';
import type { Policy, PolicyRequest } from '../../src/policy/policy.js';
import { ScriptedEnvironment } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

/** A policy whose every reply is built from the request by `reply`, so a spec can shape exactly what the server says. */
class ReplyingPolicy implements Policy {
  readonly name = 'shaped';
  readonly requests: PolicyRequest[] = [];
  constructor(readonly reply: (request: PolicyRequest, call: number) => PolicyResultInput | Promise<PolicyResultInput>) {}
  async generate(request: PolicyRequest): Promise<PolicyResultInput> {
    this.requests.push(structuredClone(request));
    return this.reply(request, this.requests.length - 1);
  }
  async close(): Promise<void> {}
}

function sampled(text: string, extra: Partial<PolicyResultInput> = {}): PolicyResultInput {
  const token_ids = tokenizer.encode(text);
  return {
    token_ids,
    logprobs: token_ids.map(() => -0.5),
    text,
    finish_reason: { unified: 'stop', raw: 'stop' },
    usage: { prompt_tokens: 0, completion_tokens: token_ids.length },
    ...extra,
  };
}

const endsAtOnce = () => new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'environment', content: 'ok' }], reward: 1, terminated: true }) });
const talks = () => new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'environment', content: 'go on' }], reward: 0, terminated: false }) });

async function episode(policy: Policy, overrides: Partial<EpisodeOptions> = {}, environment = endsAtOnce()): Promise<EpisodeRecord> {
  return runEpisode(task(0), 0, episodeOptions(policy, environment, overrides));
}

function asRollout(record: EpisodeRecord): RolloutRecord {
  assert.equal(record.record_type, 'rollout', `expected a rollout, got ${JSON.stringify(record)}`);
  return record as RolloutRecord;
}

function asFailure(record: EpisodeRecord): FailureRecord {
  assert.equal(record.record_type, 'failure', `expected a failure, got ${JSON.stringify(record.termination)}`);
  return record as FailureRecord;
}

describe('generating a turn: the prompt the server says it sampled from', () => {
  it('is no drift when it is the sequence exactly', async () => {
    const policy = new ReplyingPolicy((request) => sampled('4', { prompt_token_ids: [...request.prompt_token_ids] }));
    const record = asRollout(await episode(policy, { maxTurns: 2 }, talks()));
    assert.equal(record.token_drift_count, 0);
    assert.ok(record.turns.every((turn) => turn.token_drift === undefined));
  });

  it('is a drift where it extends the sequence with tokens the sequence does not have, at the first extra token', async () => {
    const policy = new ReplyingPolicy((request) => sampled('4', { prompt_token_ids: [...request.prompt_token_ids, ...tokenizer.encode('extra')] }));
    const record = asRollout(await episode(policy));
    const at = policy.requests[0]!.prompt_token_ids.length;
    assert.deepEqual(record.turns[0]!.token_drift, { source: 'server', at, ledger: '', template: 'extra' });
    assert.equal(record.token_drift_count, 1);
  });

  it('is a drift where it stops short of the sequence', async () => {
    const policy = new ReplyingPolicy((request) => sampled('4', { prompt_token_ids: request.prompt_token_ids.slice(0, -3) }));
    const record = asRollout(await episode(policy));
    const ids = policy.requests[0]!.prompt_token_ids;
    assert.deepEqual(record.turns[0]!.token_drift, { source: 'server', at: ids.length - 3, ledger: tokenizer.decode(ids.slice(-3)), template: '' });
  });

  it('is a drift at the first token that differs, showing up to 12 tokens of each side from there', async () => {
    const policy = new ReplyingPolicy((request) => {
      const ids = [...request.prompt_token_ids];
      ids[2] = tokenizer.encode('#')[0]!;
      return sampled('4', { prompt_token_ids: ids });
    });
    const record = asRollout(await episode(policy));
    const ids = policy.requests[0]!.prompt_token_ids;
    const changed = [...ids];
    changed[2] = tokenizer.encode('#')[0]!;
    assert.deepEqual(record.turns[0]!.token_drift, {
      source: 'server',
      at: 2,
      ledger: tokenizer.decode(ids.slice(2, 14)),
      template: tokenizer.decode(changed.slice(2, 14)),
    });
  });

  it('fails the episode as token-alignment in strict mode, naming the token where the two part', async () => {
    const strict = new TemplateRenderer(tokenizer, new PlainChatTemplate(), { drift: 'strict' });
    const policy = new ReplyingPolicy((request) => sampled('4', { prompt_token_ids: [...request.prompt_token_ids, 1] }));
    const failure = asFailure(await episode(policy, { renderer: strict }));
    assert.equal(failure.failure_class, 'token-alignment');
    assert.match(failure.error.message, new RegExp(`at token ${policy.requests[0]!.prompt_token_ids.length}`));
  });
});

describe('generating a turn: prompts the server rendered itself', () => {
  it('marks a turn drift_unchecked when the reply carries no prompt ids, checked when it does, and leaves prompts sent as ids unmarked', async () => {
    const unchecked = asRollout(await episode(new ReplyingPolicy(() => sampled('4', { prompt_source: 'server' }))));
    assert.equal(unchecked.turns[0]!.drift_unchecked, true);
    assert.equal(unchecked.drift_unchecked, 1);
    const checked = asRollout(
      await episode(new ReplyingPolicy((request) => sampled('4', { prompt_source: 'server', prompt_token_ids: [...request.prompt_token_ids] }))),
    );
    assert.equal(checked.turns[0]!.drift_unchecked, false);
    assert.equal(checked.drift_unchecked, 0);
    const asIds = asRollout(await episode(new ReplyingPolicy(() => sampled('4'))));
    assert.equal(asIds.turns[0]!.drift_unchecked, undefined);
    assert.equal(asIds.drift_unchecked, undefined);
  });
});

describe('generating a turn: what goes on the sequence', () => {
  it('tokenizes a text-only reply locally, with no logprobs, so it is never trained on', async () => {
    const policy = new ReplyingPolicy(() => ({
      token_ids: [],
      logprobs: [],
      text: 'hosted',
      finish_reason: { unified: 'stop', raw: 'stop' },
      usage: { prompt_tokens: 0, completion_tokens: 0 },
      token_source: 'none',
    }));
    const record = asRollout(await episode(policy));
    const assistant = record.messages.find((message) => message.role === 'assistant')!;
    assert.equal(assistant.content, 'hosted');
    assert.deepEqual(assistant.token_ids, tokenizer.encode('hosted'));
    assert.equal(assistant.generation_logprobs, undefined);
  });

  it('keeps the sampled ids with their logprobs, exactly as the sampler gave them', async () => {
    const ids = tokenizer.encode('abc');
    const record = asRollout(await episode(new ReplyingPolicy(() => sampled('abc', { token_ids: ids, logprobs: [-1, -2, -3] }))));
    const assistant = record.messages.find((message) => message.role === 'assistant')!;
    assert.deepEqual(assistant.token_ids, ids);
    assert.deepEqual(assistant.generation_logprobs, [-1, -2, -3]);
  });

  it("drops a final stop token's text from the message content, and only when the last sampled id is a stop token", async () => {
    const withStop = new CharTokenizer({ specialTokens: ['<end>'], stopTokens: ['<end>'] });
    const renderer = new TemplateRenderer(withStop, new PlainChatTemplate());
    const reply = (text: string) => () => {
      const token_ids = withStop.encode(text);
      return {
        token_ids,
        logprobs: token_ids.map(() => -0.1),
        text,
        finish_reason: { unified: 'stop' as const, raw: 'stop' },
        usage: { prompt_tokens: 0, completion_tokens: token_ids.length },
      };
    };
    const stopped = asRollout(await episode(new ReplyingPolicy(reply('42<end>')), { renderer }));
    assert.equal(stopped.messages.find((message) => message.role === 'assistant')!.content, '42');
    const quoted = asRollout(await episode(new ReplyingPolicy(reply('<end>4')), { renderer }));
    assert.equal(quoted.messages.find((message) => message.role === 'assistant')!.content, '<end>4');
  });
});

describe('generating a turn: the request', () => {
  it("sends the tokenizer's stop ids unless the options name others, and the task's tools only when it has them", async () => {
    const withStop = new CharTokenizer({ specialTokens: ['<end>'], stopTokens: ['<end>'] });
    const renderer = new TemplateRenderer(withStop, new PlainChatTemplate());
    const byDefault = new ReplyingPolicy(() => sampled('4'));
    await episode(byDefault, { renderer });
    assert.deepEqual(byDefault.requests[0]!.stop_token_ids, withStop.stopTokenIds);
    assert.equal('tools' in byDefault.requests[0]!, false);
    const named = new ReplyingPolicy(() => sampled('4'));
    await episode(named, { renderer, stopTokenIds: [5, 6] });
    assert.deepEqual(named.requests[0]!.stop_token_ids, [5, 6]);
    const tools = [{ type: 'function' as const, function: { name: 'add', description: 'adds', parameters: { type: 'object', properties: {} } } }];
    const withTools = new ReplyingPolicy(() => sampled('4'));
    await runEpisode(task(0, { tools }), 0, episodeOptions(withTools, endsAtOnce()));
    assert.deepEqual(withTools.requests[0]!.tools, tools);
  });

  it('sends no seed when none is set, and a distinct one per rollout and turn when one is', async () => {
    const unseeded = new ReplyingPolicy(() => sampled('4'));
    await episode(unseeded, { sampling: SamplingParams.parse({ max_tokens: 50 }) });
    assert.equal(unseeded.requests[0]!.sampling.seed, undefined);
    const seeded = new ReplyingPolicy(() => sampled('4'));
    await episode(seeded, { maxTurns: 2 }, talks());
    await runEpisode(task(0), 1, episodeOptions(seeded, endsAtOnce()));
    const seeds = seeded.requests.map((request) => request.sampling.seed);
    assert.ok(seeds.every((seed) => typeof seed === 'number'));
    assert.equal(new Set(seeds).size, 3);
  });

  it('sends every message of the conversation so far, each turn', async () => {
    const policy = new ReplyingPolicy(() => sampled('4'));
    await episode(policy, { maxTurns: 2 }, talks());
    assert.deepEqual(
      policy.requests[0]!.messages.map((message) => message.role),
      ['user'],
    );
    assert.deepEqual(
      policy.requests[1]!.messages.map((message) => message.role),
      ['user', 'assistant', 'environment'],
    );
  });
});

describe('generating a turn: results the engine refuses', () => {
  const refused = async (result: PolicyResultInput) => asFailure(await episode(new ReplyingPolicy(() => result)));

  it('fails the episode as policy-error when the server finished with an error, with its reason', async () => {
    const failure = await refused(sampled('x', { finish_reason: { unified: 'error', raw: 'engine dead' } }));
    assert.equal(failure.failure_class, 'policy-error');
    assert.match(failure.error.message, /finished with an error \(engine dead\)/);
  });

  it('fails the episode as aborted when the server aborted the generation', async () => {
    const failure = await refused(sampled('x', { finish_reason: { unified: 'abort', raw: 'preempted' } }));
    assert.equal(failure.failure_class, 'aborted');
    assert.match(failure.error.message, /aborted the generation \(preempted\)/);
  });

  it('fails the episode as policy-error when the server returned more tokens than max_tokens', async () => {
    const failure = asFailure(await episode(new ReplyingPolicy(() => sampled('y'.repeat(60))), {}));
    assert.equal(failure.failure_class, 'policy-error');
    assert.match(failure.error.message, /returned 60 tokens, more than max_tokens 50/);
  });

  it('accepts exactly max_tokens tokens', async () => {
    asRollout(await episode(new ReplyingPolicy(() => sampled('y'.repeat(50)))));
  });

  it('says "no detail" when the server gave no reason for an error or an abort', async () => {
    const failed = await refused(sampled('x', { finish_reason: { unified: 'error' } }));
    assert.match(failed.error.message, /finished with an error \(no detail\)/);
    const aborted = await refused(sampled('x', { finish_reason: { unified: 'abort' } }));
    assert.match(aborted.error.message, /aborted the generation \(no detail\)/);
  });

  it('names every field of an invalid result by its path', async () => {
    const failure = await refused({ ...sampled('x'), finish_reason: { unified: 'bogus' as 'stop' }, text: 5 as unknown as string });
    assert.match(failure.error.message, /invalid result: text: [^;]+; finish_reason\.unified: /);
  });

  it('names the field of an invalid result', async () => {
    const failure = await refused({ ...sampled('x'), logprobs: [] });
    assert.equal(failure.failure_class, 'policy-error');
    assert.match(failure.error.message, /invalid result: logprobs: token_ids and logprobs must have the same length/);
  });
});

describe("generating a turn: the server's context is full", () => {
  const full = (failOnCall: number) =>
    new ReplyingPolicy((_request, call) => {
      if (call === failOnCall) throw new ContextLengthError(130, 128);
      return sampled('4');
    });

  it("ends as prompt-too-long before any turn, with the server's words", async () => {
    const record = asRollout(await episode(full(0), { maxTurns: 3 }, talks()));
    assert.deepEqual(record.termination, { kind: 'prompt-too-long', detail: "the prompt is 130 tokens, leaving no room in the model's context of 128" });
    assert.equal(record.turns.length, 0);
  });

  it('ends as max-seq-len after a turn, keeping the turns before it', async () => {
    const record = asRollout(await episode(full(1), { maxTurns: 3 }, talks()));
    assert.deepEqual(record.termination, { kind: 'max-seq-len', detail: "the prompt is 130 tokens, leaving no room in the model's context of 128" });
    assert.equal(record.turns.length, 1);
  });
});
