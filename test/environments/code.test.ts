import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runEpisode } from '../../src/engine/index.js';
import { codeAgentEnvironment } from '../../src/environments/code-agent.js';
import { codeEnvironment } from '../../src/environments/code.js';
import type { Environment } from '../../src/environments/environment.js';
import { extractCode } from '../../src/environments/extract-code.js';
import { SandboxPool } from '../../src/sandbox/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { episodeOptions, task, tokenizer } from '../support/plain-episode.js';

const pool = new SandboxPool(2);
const limits = { cpuSeconds: 1, wallMs: 5000, memoryBytes: 256 * 1024 * 1024 };
const fence = (code: string, language = 'python'): string => `Here is my solution.\n\`\`\`${language}\n${code}\n\`\`\`\n`;
const addition = { verifier_metadata: { unit_tests: { inputs: ['1 2\n', '5 7\n', '-3 3\n'], outputs: ['3\n', '12\n', '0\n'] } } };

async function episode(answer: string | string[], data: Record<string, unknown>, environment: Environment = codeEnvironment({ pool, limits }) as Environment) {
  const policy = new ScriptedPolicy({ tokenizer, script: (Array.isArray(answer) ? answer : [answer]).map((text) => ({ text })) });
  return runEpisode(
    task(0, { data }),
    0,
    episodeOptions(policy, environment, { maxSeqLen: 100_000, sampling: { ...episodeOptions(policy, environment).sampling, max_tokens: 2000 } }),
  );
}

describe('extractCode', () => {
  it('takes the lines between the last two fence lines, as NeMo Gym code_gen does', () => {
    assert.equal(extractCode('```python\nprint(1)\n```'), 'print(1)');
    assert.equal(extractCode('first\n```\nprint(1)\n```\nthen\n```py\nprint(2)\n```\nend'), 'print(2)');
    assert.equal(extractCode('print(1)'), null);
    assert.equal(extractCode('```\n```'), null);
  });
});

describe('the code environment', () => {
  it('runs the answer against each unit test in the sandbox: all pass, reward 1, a verdict per test on the row', async () => {
    const record = await episode(fence('a, b = map(int, input().split())\nprint(a + b)'), addition);
    assert.equal(record.reward, 1);
    const fields = record.env_fields as { result: boolean[]; unit_tests: { status: string }[]; tests_passed: number; extracted_model_code: string };
    assert.deepEqual(fields.result, [true, true, true]);
    assert.deepEqual(
      fields.unit_tests.map((test) => test.status),
      ['ok', 'ok', 'ok'],
    );
    assert.equal(fields.extracted_model_code, 'a, b = map(int, input().split())\nprint(a + b)');
  });

  it('is all-or-nothing by default, and gives the fraction passed with reward_mode fraction', async () => {
    const wrongOnNegatives = fence('a, b = map(int, input().split())\nprint(abs(a) + b)');
    assert.equal((await episode(wrongOnNegatives, addition)).reward, 0);
    const record = await episode(wrongOnNegatives, { ...addition, reward_mode: 'fraction' });
    assert.equal(record.reward, 2 / 3);
    assert.deepEqual((record.env_fields as { result: boolean[] }).result, [true, true, false]);
  });

  it('fails the tests of a program that spins, with the timeout verdict on the row, and still ends the episode', async () => {
    const record = await episode(fence('while True:\n    pass'), { verifier_metadata: { unit_tests: { inputs: [''], outputs: ['1'] } } });
    assert.equal(record.record_type, 'rollout');
    assert.equal(record.reward, 0);
    const [test] = (record.env_fields as { unit_tests: { status: string; limit: string }[] }).unit_tests;
    assert.deepEqual([test!.status, test!.limit], ['timeout', 'cpu']);
  });

  it('scores an answer without a fenced program as 0, no test run', async () => {
    const record = await episode('print(3)', addition);
    assert.equal(record.reward, 0);
    const fields = record.env_fields as { extracted_model_code: null; unit_tests: unknown[]; result: boolean[] };
    assert.deepEqual([fields.extracted_model_code, fields.unit_tests, fields.result], [null, [], [false, false, false]]);
  });

  it('fails the rollout as an env-error when no sandbox can be made, never scoring it 0', async () => {
    const record = await episode(fence('print(3)'), addition, codeEnvironment({ pool: new SandboxPool(1, { path: '/nonexistent' }) }) as Environment);
    assert.equal(record.record_type, 'failure');
    assert.equal((record as unknown as { failure_class: string }).failure_class, 'env-error');
    assert.match(JSON.stringify(record), /apt-get install bubblewrap/);
  });

  it('calls a function by fn_name on JSON arguments (LiveCodeBench call tests), in Python and Node', async () => {
    const tests = { inputs: ['[1, 2, 3]\n2', '[]\n5'], outputs: ['[2, 4, 6]', '[]'], fn_name: 'scale' };
    const python = await episode(fence('class Solution:\n    def scale(self, xs, k):\n        return [x * k for x in xs]'), {
      verifier_metadata: { unit_tests: tests },
    });
    assert.equal(python.reward, 1);
    const node = await episode(fence('function scale(xs, k) { return xs.map((x) => x * k); }', 'javascript'), {
      verifier_metadata: { unit_tests: tests },
      language: 'node',
    });
    assert.equal(node.reward, 1, JSON.stringify(node.env_fields));
  });
});

describe('the code-agent environment', () => {
  it('runs code through its run_code tool, shows the verdict as the observation, then scores the answer', async () => {
    const call = (code: string): string => `<tool_call>\n${JSON.stringify({ name: 'run_code', arguments: { code, stdin: '2 3\n' } })}\n</tool_call>`;
    const record = await episode(
      [
        call('a, b = map(int, input().split())\nprint(a - b)'),
        call('import socket\nsocket.create_connection(("1.1.1.1", 53))'),
        fence('a, b = map(int, input().split())\nprint(a + b)'),
      ],
      addition,
      codeAgentEnvironment({ pool, limits }),
    );
    assert.equal(record.reward, 1);
    const observations = record.messages
      .filter((message) => message.role === 'tool')
      .map((message) => JSON.parse(message.content) as { status: string; stdout: string; stderr: string });
    assert.deepEqual(
      observations.map((observation) => [observation.status, observation.stdout]),
      [
        ['ok', '-1\n'],
        ['runtime-error', ''],
      ],
    );
    assert.match(observations[1]!.stderr, /Network is unreachable/);
    assert.equal((record.env_fields as { code_runs: number }).code_runs, 2);
    assert.deepEqual(record.env_metadata, { tool_calls: 2, code_runs: 2 }, 'the unit tests are on the row already, not copied into its metadata');
  });
});
