import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SamplingParams, type EpisodeRecord } from '../../src/core/index.js';
import { runGroups, type EpisodeGroup, type Schedule } from '../../src/engine/index.js';
import type { PolicyRequest } from '../../src/policy/policy.js';
import { ScriptedEnvironment, ScriptedPolicy, type Script, type ScriptedReply } from '../../src/testing/index.js';
import { createSeededRandom } from '../../src/util/seeded-random.js';
import { episodeOptions, task, tokenizer, withoutTiming } from '../support/plain-episode.js';
import { settled } from '../support/settled.js';

/**
 * A policy whose reply depends only on the request's seed (as a seeded sampler's would): replies vary in
 * length, content, finish reason and latency, so schedules interleave differently while sampling the same.
 */
function seededReply(request: PolicyRequest): ScriptedReply {
  const random = createSeededRandom(request.sampling.seed ?? 0);
  const length = random.int(1, 45);
  const token_ids = Array.from({ length }, () => tokenizer.encode(random.pick([...'0123456789abc ']))[0]!);
  return { token_ids, logprobs: token_ids.map(() => -random.next()), delay_ms: random.int(0, 8) };
}

/** Scores the digits in the last answer; ends on "77", throws on a leading "c" (so failures take part in the comparison). */
const digitEnvironment = () =>
  new ScriptedEnvironment({
    step: ({ messages }) => {
      const answer = messages.at(-1)!.content;
      if (answer.startsWith('c')) throw new Error('unparseable answer');
      const digits = answer.replace(/\D/g, '');
      return {
        observation: [{ role: 'environment', content: `you said ${digits.length} digits` }],
        reward: digits.length / 10,
        reward_components: { digits: digits.length / 10 },
        terminated: answer.includes('77'),
        next_stop_strings: digits.length % 2 === 0 ? ['9'] : null,
      };
    },
  });

/**
 * Answers the sessions in `order`, each once the one before it was answered and everything that
 * answer set off has run: episodes end in that order however busy the machine is.
 */
function inOrder(order: readonly string[]): Script {
  const opens: (() => void)[] = [];
  const turns = order.map((_, i) => (i === 0 ? Promise.resolve() : new Promise<void>((open) => (opens[i] = open))));
  return async (request) => {
    const i = order.indexOf(request.session_id);
    await turns[i];
    void settled().then(opens[i + 1]);
    return { text: 'a' };
  };
}

async function collect(schedule: Schedule, groupSize: number, taskCount: number): Promise<{ groups: EpisodeGroup[]; records: EpisodeRecord[] }> {
  const policy = new ScriptedPolicy({ tokenizer, script: seededReply });
  const sampling = SamplingParams.parse({ max_tokens: 40, seed: 7 });
  const options = episodeOptions(policy, digitEnvironment(), { maxTurns: 6, maxSeqLen: 360, sampling });
  const groups: EpisodeGroup[] = [];
  const tasks = Array.from({ length: taskCount }, (_, i) => task(i));
  for await (const group of runGroups(tasks, options, { groupSize, schedule })) groups.push(group);
  const records = groups.flatMap((group) => group.records).sort((a, b) => a.task_index - b.task_index || a.rollout_index - b.rollout_index);
  return { groups, records };
}

describe('schedules', () => {
  it('async and lockstep schedules give byte-identical records (all but timing) for the same seeds', async () => {
    const asyncRun = await collect({ kind: 'async', concurrency: 5 }, 4, 6);
    const lockstepRun = await collect({ kind: 'lockstep', concurrency: 8 }, 4, 6);
    assert.equal(asyncRun.records.length, 24);
    assert.equal(JSON.stringify(withoutTiming(asyncRun.records)), JSON.stringify(withoutTiming(lockstepRun.records)));
    const kinds = new Set(asyncRun.records.map((record) => record.termination.kind));
    assert.ok(kinds.size >= 4, `the comparison should cover several endings, got ${[...kinds].join(', ')}`);
    const cutThenGoneOn = asyncRun.records.some((record) => record.turns.slice(0, -1).some((turn) => turn.generation_cut === 'max-tokens'));
    assert.ok(cutThenGoneOn, 'and episodes that went on after a generation cut by max_tokens');
  });

  it('lockstep starts no turn until every active episode of its batch finished the previous one', async () => {
    const order: string[] = [];
    const environment = new ScriptedEnvironment({ step: () => ({ observation: [{ role: 'environment', content: 'x' }], reward: 0, terminated: false }) });
    const run = async (schedule: Schedule) => {
      order.length = 0;
      const policy = new ScriptedPolicy({
        tokenizer,
        // Task 0's first reply is held until the other episode went as far as the schedule lets it.
        script: async (request, turn) => {
          order.push(`${request.session_id}:${turn}`);
          if (request.session_id.startsWith('task-0') && turn === 0) await settled();
          return { text: 'a' };
        },
      });
      const options = episodeOptions(policy, environment, { maxTurns: 3 });
      for await (const _ of runGroups([task(0), task(1)], options, { groupSize: 1, schedule }));
      return [...order];
    };

    const lockstep = await run({ kind: 'lockstep', concurrency: 2 });
    assert.deepEqual(
      lockstep.map((entry) => Number(entry.split(':')[1])),
      [0, 0, 1, 1, 2, 2],
    );
    const asynchronous = await run({ kind: 'async', concurrency: 2 });
    assert.deepEqual(asynchronous.slice(0, 4), ['task-0#0:0', 'task-1#0:0', 'task-1#0:1', 'task-1#0:2'], 'the fast episode runs ahead');
  });

  it('yields each group as soon as all its members end, in completion order, members in rollout order', async () => {
    // Task 1's episodes end first, and within each task later rollouts end first.
    const policy = new ScriptedPolicy({ tokenizer, script: inOrder(['task-1#2', 'task-1#1', 'task-1#0', 'task-0#2', 'task-0#1', 'task-0#0']) });
    const environment = new ScriptedEnvironment({ step: () => ({ reward: 1, terminated: true }) });
    const yielded: EpisodeGroup[] = [];
    for await (const group of runGroups([task(0), task(1)], episodeOptions(policy, environment), { groupSize: 3 })) yielded.push(group);

    assert.deepEqual(
      yielded.map((group) => group.task.index),
      [1, 0],
    );
    for (const group of yielded)
      assert.deepEqual(
        group.records.map((record) => record.rollout_index),
        [0, 1, 2],
      );
  });

  it('reads tasks lazily: admission follows the concurrency, not the dataset size', async () => {
    let produced = 0;
    function* endless() {
      for (let i = 0; ; i++) {
        produced += 1;
        yield task(i);
      }
    }
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment({ step: () => ({ reward: 1, terminated: true }) });
    let groups = 0;
    for await (const _ of runGroups(endless(), episodeOptions(policy, environment), { groupSize: 2, schedule: { kind: 'async', concurrency: 4 } })) {
      if (++groups === 10) break;
    }
    assert.ok(produced <= 10 + 4, `read ${produced} tasks to finish 10 groups`);
  });

  it('refuses a group size or concurrency that is not a whole number ≥ 1, as a config error', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'a' }] });
    const environment = new ScriptedEnvironment({ step: () => ({ reward: 1, terminated: true }) });
    const options = episodeOptions(policy, environment);
    await assert.rejects(runGroups([task(0)], options, { groupSize: 0 }).next(), { kind: 'config', message: /groupSize must be a whole number ≥ 1, got 0/ });
    await assert.rejects(runGroups([task(0)], options, { groupSize: 1, schedule: { kind: 'async', concurrency: 0 } }).next(), {
      kind: 'config',
      message: /schedule\.concurrency/,
    });
  });
});
