import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EnvironmentError, GymnastError, type Message, type RolloutRecord } from '../../src/core/index.js';
import { runEpisode } from '../../src/engine/index.js';
import { areMathEquivalent, extractMathAnswer, mathEnvironment } from '../../src/environments/index.js';
import { StepResult } from '../../src/core/step-result.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

const signal = new AbortController().signal;

/** Resets a math environment on `data` and steps it once with the given assistant turns, checking the result against the contract. */
async function grade(data: unknown, ...replies: string[]): Promise<StepResult> {
  const environment = mathEnvironment();
  const { metadata } = await environment.reset(data, signal);
  const messages: Message[] = [{ role: 'user', content: 'What is one half?' }];
  for (const [i, reply] of replies.entries()) {
    if (i > 0) messages.push({ role: 'user', content: 'Are you sure?' });
    messages.push({ role: 'assistant', content: reply });
  }
  return StepResult.parse(await environment.step({ messages, metadata }, signal));
}

describe('extractMathAnswer', () => {
  it('takes the content of the last \\boxed{}, matching nested braces', () => {
    assert.equal(extractMathAnswer('first \\boxed{1}, then \\boxed{\\frac{1}{2}}.'), '\\frac{1}{2}');
  });

  it('accepts \\fbox{} and the brace-less form \\boxed 5', () => {
    assert.equal(extractMathAnswer('so \\fbox{7}'), '7');
    assert.equal(extractMathAnswer('$\\boxed 5$'), '5');
  });

  it('skips escaped braces inside the box, so a set stays whole', () => {
    assert.equal(extractMathAnswer('the roots are \\boxed{\\{1,2\\}}'), '\\{1,2\\}');
  });

  it('falls back to the last number when the last box is never closed, and to null when there is none', () => {
    assert.equal(extractMathAnswer('I get 7, so \\boxed{\\frac{1}{2}'), '2');
    assert.equal(extractMathAnswer('\\boxed{x + y'), null);
  });

  it('takes the last number when nothing is boxed, dropping thousands separators', () => {
    assert.equal(extractMathAnswer('3 boxes of 1,000 each'), '1000');
    assert.equal(extractMathAnswer('about 1,234,567.5 in total'), '1234567.5');
    assert.equal(extractMathAnswer('it is -3.5'), '-3.5');
  });

  it('returns null when the text holds no answer at all', () => {
    assert.equal(extractMathAnswer('I do not know.'), null);
  });
});

describe('areMathEquivalent', () => {
  const equivalent: [string, string][] = [
    ['\\frac{1}{2}', '0.5'],
    ['2\\sqrt{2}', '\\sqrt{8}'],
    ['x^2+2x+1', '(x+1)^2'],
    ['(x-1)(x+1)', 'x^2-1'],
    ['\\dfrac{3}{4}', '0.75'],
    ['\\{1,2\\}', '\\{2,1\\}'],
    ['x = 3', '3'],
    ['\\text{5}', '5'],
  ];
  for (const [answer, truth] of equivalent) {
    it(`accepts ${answer} for ${truth}`, async () => {
      assert.equal(await areMathEquivalent(answer, truth), true);
    });
  }

  const different: [string, string, string][] = [
    ['[1,2)', '\\left[1,\\frac32\\right)', 'intervals with different ends'],
    ['(0,1]', '[0,1]', 'an open end for a closed one'],
    ['0.3333', '\\frac13', 'a rounded decimal for an exact fraction'],
    ['x^2', 'y^2', 'the same form in another variable'],
  ];
  for (const [answer, truth, why] of different) {
    it(`rejects ${answer} for ${truth} (${why})`, async () => {
      assert.equal(await areMathEquivalent(answer, truth), false);
    });
  }

  it('compares answers over 200 characters as text only, and answers at once', async () => {
    const long = `${'1+'.repeat(150)}1`;
    const started = performance.now();
    assert.equal(await areMathEquivalent(long, '151'), false, 'a long sum is not evaluated, even though it equals 151');
    assert.ok(performance.now() - started < 100, 'a long answer must not start symbolic work');
    assert.equal(await areMathEquivalent(long, long), true);
  });
});

describe('the math environment', () => {
  it('resets from NeMo RL ground_truth or NeMo Gym expected_answer, as text', async () => {
    const environment = mathEnvironment();
    assert.deepEqual((await environment.reset({ ground_truth: '1/2' }, signal)).metadata, { ground_truth: '1/2' });
    assert.deepEqual((await environment.reset({ expected_answer: 0.5 }, signal)).metadata, { ground_truth: '0.5' });
  });

  it('rejects a task without an answer with an environment error naming ground_truth', async () => {
    await assert.rejects(mathEnvironment().reset({}, signal), (error: unknown) => {
      assert.ok(error instanceof EnvironmentError);
      assert.ok(GymnastError.isInstance(error));
      assert.equal(error.kind, 'environment');
      assert.match(error.message, /ground_truth/);
      return true;
    });
  });

  it('rewards an equivalent boxed answer with 1 and ends the episode', async () => {
    const result = await grade({ ground_truth: '0.5' }, 'Half of one is \\boxed{\\frac{1}{2}}.');
    assert.equal(result.reward, 1);
    assert.equal(result.terminated, true);
    assert.deepEqual(result.observation, [{ role: 'environment', content: 'Environment: correct' }]);
    assert.equal(result.answer, '\\frac{1}{2}');
  });

  it('gives 0 for a wrong answer, still ending the episode', async () => {
    const result = await grade({ ground_truth: '0.5' }, 'It is \\boxed{\\frac{1}{3}}.');
    assert.equal(result.reward, 0);
    assert.equal(result.terminated, true);
    assert.deepEqual(result.observation, [{ role: 'environment', content: 'Environment: incorrect' }]);
    assert.equal(result.answer, '\\frac{1}{3}');
  });

  it('gives 0 and a null answer when the reply holds no answer', async () => {
    const result = await grade({ ground_truth: '0.5' }, 'I cannot tell.');
    assert.equal(result.reward, 0);
    assert.equal(result.answer, null);
  });

  it('grades a final number followed by a comma as that number', async () => {
    const result = await grade({ ground_truth: '42' }, 'The answer is 42, I think.');
    assert.equal(result.answer, '42');
    assert.equal(result.reward, 1);
  });

  it('reads every assistant turn: a box in an earlier turn counts when the last has none', async () => {
    const result = await grade({ expected_answer: '1/2' }, 'It is \\boxed{0.5}.', 'Yes, I am sure.');
    assert.equal(result.reward, 1);
    assert.equal(result.answer, '0.5');
  });

  it('scores a whole episode run by the engine: one turn, reward 1, ended by the environment', async () => {
    const policy = new ScriptedPolicy({ tokenizer, script: [{ text: 'the answer is \\boxed{\\frac{1}{2}}' }] });
    const record = await runEpisode(task(0, { data: { ground_truth: '0.5' } }), 0, episodeOptions(policy, mathEnvironment()));
    assert.equal(record.record_type, 'rollout', JSON.stringify(record));
    const rollout = record as RolloutRecord;
    assert.equal(rollout.reward, 1);
    assert.deepEqual(rollout.termination, { kind: 'env-done' });
    assert.equal(rollout.turns.length, 1);
    assert.equal(rollout.messages.at(-1)?.content, 'Environment: correct');
  });
});
