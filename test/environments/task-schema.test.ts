import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { builtinEnvironments } from '../../src/environments/index.js';
import { schemaIssues } from '../../src/core/schema-issues.js';

const signal = new AbortController().signal;

/** Per built-in environment: a task it runs, and a bad one with the issue the check gives for it. */
const tasks: Record<string, { good: unknown; bad: unknown; issue: string }> = {
  math: {
    good: { expected_answer: '1/2' },
    bad: { question: 'what is 1/2?' },
    issue: 'expected_answer: missing (a math task needs ground_truth or expected_answer)',
  },
  'sliding-puzzle': { good: { seed: 3 }, bad: { seed: 3, size: 9 }, issue: 'size: expected a number ≤ 6, got 9' },
  calculator: { good: { expected_final_answer: 12 }, bad: { expected_final_answer: '12' }, issue: 'expected_final_answer: expected a number, got "12"' },
  'session-counter': { good: { initial_count: 1, expected_count: 3 }, bad: { initial_count: 1 }, issue: 'expected_count: missing (expected a number)' },
  code: {
    good: { verifier_metadata: { unit_tests: { inputs: ['1\n'], outputs: ['2\n'] } } },
    bad: { verifier_metadata: { unit_tests: { inputs: ['1\n'], outputs: [] } } },
    issue: 'verifier_metadata.unit_tests: unit_tests.inputs and unit_tests.outputs need the same length, got {"inputs":["1\\n"],"outputs":[]}',
  },
  'code-agent': {
    good: { verifier_metadata: { unit_tests: { inputs: ['1\n'], outputs: ['2\n'] } }, language: 'node' },
    bad: { verifier_metadata: { unit_tests: { inputs: ['1\n'], outputs: ['2\n'] } }, language: 'ruby' },
    issue: 'language: expected "python" or "node", got "ruby"',
  },
  arithmetic: { good: { problem: '2+3', answer: 5 }, bad: { problem: '2+3', answer: 'abc' }, issue: 'answer: expected a number, got "abc"' },
};

describe('the task fields an environment declares (taskSchema)', () => {
  for (const entry of builtinEnvironments) {
    it(`${entry.name}: the check before a run and reset apply the same rule`, async () => {
      const environment = entry.create();
      const { good, bad, issue } = tasks[entry.name]!;
      assert.ok(environment.taskSchema, `${entry.name} declares its task fields`);
      assert.deepEqual(schemaIssues(environment.taskSchema, good), []);
      await environment.reset(good, signal);
      assert.deepEqual(schemaIssues(environment.taskSchema, bad).map(({ field, message }) => `${field}: ${message}`)[0], issue);
      await assert.rejects(environment.reset(bad, signal), (error: Error & { kind?: string }) => {
        assert.equal(error.kind, 'environment');
        assert.ok(error.message.includes(issue), error.message);
        return true;
      });
    });
  }
});

describe('schemaIssues: what was expected and what was there', () => {
  const Row = z.object({
    count: z.number().int().min(1, { error: 'expected a whole number ≥ 1' }),
    top_p: z.number().gt(0).max(1).optional(),
    name: z.string(),
    answer: z.union([z.string(), z.number()]).optional(),
    items: z
      .array(z.union([z.object({ type: z.literal('call'), name: z.string() }), z.object({ type: z.literal('text').optional(), text: z.string() })]))
      .optional(),
    strict: z.object({ a: z.number() }).strict().optional(),
  });
  const issues = (value: unknown) => schemaIssues(Row, value).map(({ field, message }) => `${field}: ${message}`);

  it('names the field, the expectation and the value found, or that the field is missing', () => {
    assert.deepEqual(issues({ count: 0, top_p: 5 }), [
      'count: expected a whole number ≥ 1, got 0',
      'top_p: expected a number ≤ 1, got 5',
      'name: missing (expected text)',
    ]);
    assert.deepEqual(issues({ count: 1.5, name: 7 }), ['count: expected a whole number, got 1.5', 'name: expected text, got 7']);
  });

  it('words a union by its branches, or by the branch the value was meant for', () => {
    assert.deepEqual(issues({ count: 1, name: 'x', answer: null }), ['answer: expected text or a number, got null']);
    assert.deepEqual(issues({ count: 1, name: 'x', items: [{ type: 'call' }, { text: 5 }] }), [
      'items.0.name: missing (expected text)',
      'items.1.text: expected text, got 5',
    ]);
    assert.deepEqual(issues({ count: 1, name: 'x', items: [{ type: 'image' }] }), ['items.0.type: expected "call" or "text", got "image"']);
  });

  it('names unknown fields of a strict object, and cuts long values short', () => {
    assert.deepEqual(issues({ count: 1, name: 'x', strict: { a: 1, b: 2 } }), ['strict.b: unknown field']);
    const [long] = issues({ count: 'x'.repeat(500), name: 'x' });
    assert.ok(long!.length < 100 && long!.endsWith('…'), long);
  });

  it('says what the value itself should have been', () => {
    assert.deepEqual(issues([1, 2]), [': expected an object, got [1,2]']);
  });
});
