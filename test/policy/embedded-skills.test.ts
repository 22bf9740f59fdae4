import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EpisodeTask, SamplingParams, type EpisodeRecord } from '../../src/core/index.js';
import { runGroups, type Schedule } from '../../src/engine/index.js';
import { arithmeticEnvironment, arithmeticPrompt, parseHermesToolCalls } from '../../src/environments/index.js';
import { evaluateArithmetic } from '../../src/environments/arithmetic-expression.js';
import { JinjaChatTemplate, TemplateRenderer, type HfTokenizer } from '../../src/tokens/index.js';
import { embeddedPolicy, heldOutPairs, runArithmetic } from '../support/embedded-arithmetic.js';

/** Targets on the committed weights; every problem here was held out of training. */
describe('the embedded model (committed weights)', () => {
  it('answers held-out 2-digit additions right, greedy, at least 80% of the time', async () => {
    const problems = heldOutPairs([10, 99]).map(([a, b]) => `${a}+${b}`);
    const records = await runArithmetic(problems, { greedy: true });
    const firstTry = records.filter((record) => record.record_type === 'rollout' && record.reward === 1 && record.turns.length === 1).length;
    assert.ok(firstTry / records.length >= 0.8, `${firstTry}/${records.length} right on the first answer`);
  });

  it('writes a well-formed calculator call, ended by its end token, for at least 95% of held-out products and 3-term sums', async () => {
    const problems = [
      ...heldOutPairs([2, 99])
        .filter((_, i) => i % 8 === 0)
        .map(([a, b]) => `${a}*${b}`),
      ...heldOutPairs([10, 99])
        .filter((_, i) => i % 8 === 0)
        .map(([a, b]) => `${a}+${b}+${100 + a + b}`),
    ];
    const records = await runArithmetic(problems, { greedy: true });
    const wellFormed = records.filter((record) => {
      const first = record.messages.find((message) => message.role === 'assistant');
      const blocks = parseHermesToolCalls(first?.content ?? '');
      return (
        record.turns[0]?.finish_reason.unified === 'stop' &&
        blocks.length === 1 &&
        'call' in blocks[0]! &&
        blocks[0].call.name === 'calculator' &&
        typeof blocks[0].call.arguments.expression === 'string'
      );
    }).length;
    assert.ok(wellFormed / records.length >= 0.95, `${wellFormed}/${records.length} well-formed calls`);
  });

  it('calls the calculator and answers with its result on at least 80% of held-out products', async () => {
    const problems = heldOutPairs([2, 99])
      .filter((_, i) => i % 8 === 0)
      .map(([a, b]) => `${a}*${b}`);
    const records = await runArithmetic(problems, { greedy: true });
    const usedToolAndRight = records.filter((record) => record.reward === 1 && record.messages.some((message) => message.role === 'tool')).length;
    assert.ok(usedToolAndRight / records.length >= 0.8, `${usedToolAndRight}/${records.length} used the tool and answered right`);
  });

  it('at temperature 1 its reward varies across repeats: pass@8 beats pass@1, as RL needs', async () => {
    const problems = heldOutPairs([10, 99])
      .filter((_, i) => i % 20 === 0)
      .map(([a, b]) => `${a}+${b}`);
    const records = await runArithmetic(problems, { temperature: 1, seed: 7 }, 8);
    const byTask = new Map<number, number[]>();
    for (const record of records) byTask.set(record.task_index, [...(byTask.get(record.task_index) ?? []), record.reward]);
    const passAt1 = records.filter((record) => record.reward === 1).length / records.length;
    const passAt8 = [...byTask.values()].filter((rewards) => rewards.some((reward) => reward === 1)).length / byTask.size;
    assert.ok(passAt8 > passAt1, `pass@8 ${passAt8} vs pass@1 ${passAt1}`);
    assert.ok(records.every((record) => record.record_type === 'rollout'));
    assert.ok(records.every((record) => record.turns.every((turn) => turn.logprobs_mode === 'raw')));
  });
});

describe('schedules on a real sampler', () => {
  it('async and lockstep runs of the embedded model give byte-identical records for the same seeds', async () => {
    const policy = await embeddedPolicy();
    const tokenizer = policy.tokenizer as HfTokenizer;
    const problems = ['23+45', '67*8', '12+34+567', '91+9', '44*44', '30+71'];
    const tasks = problems.map((problem, index) =>
      EpisodeTask.parse({ id: problem, index, messages: arithmeticPrompt({ problem }), data: { problem, answer: evaluateArithmetic(problem) } }),
    );
    const options = {
      policy,
      environment: arithmeticEnvironment(),
      renderer: new TemplateRenderer(tokenizer, JinjaChatTemplate.fromConfig(tokenizer.config)),
      maxTurns: 4,
      maxSeqLen: policy.maxModelLen,
      sampling: SamplingParams.parse({ temperature: 1, max_tokens: 96, seed: 11 }),
      clock: { now: () => 0 },
    };
    const recordsOf = async (schedule: Schedule) => {
      const records: EpisodeRecord[] = [];
      for await (const group of runGroups(tasks, options, { groupSize: 4, schedule })) records.push(...group.records);
      return JSON.stringify(records.sort((a, b) => a.task_index - b.task_index || a.rollout_index - b.rollout_index));
    };
    assert.equal(await recordsOf({ kind: 'async', concurrency: 5 }), await recordsOf({ kind: 'lockstep', concurrency: 24 }));
  });
});
