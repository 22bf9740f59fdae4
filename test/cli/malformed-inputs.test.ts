import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { errorReport } from '../../src/cli/main.js';
import { qwen3Directory } from '../support/qwen3.js';

/**
 * A corpus of malformed inputs run through the real CLI. For each: exit 1, a message naming where
 * (file:line: field for rows, the flag, file: key for config files) and what was expected, no stack
 * trace, and nothing written. Rows are grouped into files of up to 20 problems (all a report shows),
 * which also specifies that every bad line is reported together, not just the first.
 */

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/gymnast.js');
const examples = join(root, 'examples/arithmetic.jsonl');

interface Refusal {
  code: number;
  stderr: string;
  /** Files the run left in its directory besides the ones the test wrote. */
  written: string[];
}

/**
 * Runs `gymnast <args>` (under `node <nodeFlags>`, with `env` added, or removed where undefined) in a fresh directory holding `files` (removed
 * after); `{dir}` in an argument is that directory. The output, when there is one, goes to `{dir}/out/rollouts.jsonl`.
 */
async function refused(
  args: readonly string[],
  files: Record<string, string | Buffer> = {},
  { nodeFlags = [], env = {} }: { nodeFlags?: readonly string[]; env?: Record<string, string | undefined> } = {},
): Promise<Refusal & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-malformed-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  try {
    // A server that should have been refused would otherwise listen until the suite is killed.
    await run(process.execPath, [...nodeFlags, bin, ...args.map((arg) => arg.replaceAll('{dir}', dir))], {
      env: Object.fromEntries(Object.entries({ ...process.env, GYMNAST_DEBUG: '', ...env }).filter(([, value]) => value !== undefined)),
      timeout: 60_000,
    });
    assert.fail(`gymnast ${args.join(' ')} was accepted`);
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    if (typeof code !== 'number') throw error;
    return { code, stderr, dir, written: readdirSync(dir).filter((name) => !(name in files)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A run started the first time a test asks for it, shared by the tests that read it. */
function shared<T>(start: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= start());
}

/** What every refusal shares: exit 1, no stack trace, nothing written. */
function assertRefusedCleanly(result: Refusal): void {
  assert.equal(result.code, 1, result.stderr);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  assert.deepEqual(result.written, [], 'nothing written');
}

const collectArgs = (input = '{dir}/rows.jsonl') => ['collect', '--input', input, '--output', '{dir}/out/rollouts.jsonl'];

/** The problems a refused collect reported, by input line: `field: message` each. */
function problemsByLine(stderr: string, input: string): Map<number, string[]> {
  const problems = new Map<number, string[]>();
  for (const match of stderr.matchAll(/^ {2}(.+?):(\d+): (.*)$/gm)) {
    if (match[1] !== input) continue;
    const line = Number(match[2]);
    problems.set(line, [...(problems.get(line) ?? []), match[3]!]);
  }
  return problems;
}

const ask = (content = 'what is 1+1?') => ({ input: [{ role: 'user', content }] });
const arithmetic = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({ responses_create_params: ask(), agent_ref: { name: 'arithmetic' }, problem: '1+1', answer: 2, ...fields });
const request = (params: Record<string, unknown>) => arithmetic({ responses_create_params: { input: 'what is 1+1?', ...params } });
const task = (agent: string, fields: Record<string, unknown>) => JSON.stringify({ responses_create_params: ask(), agent_ref: { name: agent }, ...fields });

type RowCase = [name: string, line: string, problem: string | RegExp];

/** Each group is one input file: a good row first, blank lines, then one bad row per case. */
const rowGroups: Record<string, RowCase[]> = {
  'lines that are not rows': [
    ['not JSON', 'not json', /^not valid JSON \(/],
    ['a cut-off line', '{"responses_create_params": ', /^not valid JSON \(/],
    ['a list', '[1,2]', 'expected an object, got [1,2]'],
    ['a string', '"what is 1+1?"', 'expected an object, got "what is 1+1?"'],
    ['a number', '42', 'expected an object, got 42'],
    ['null', 'null', 'expected an object, got null'],
    [
      'a request that is not an object',
      arithmetic({ responses_create_params: 'what is 1+1?' }),
      'responses_create_params: expected an object, got "what is 1+1?"',
    ],
    ['no prompt', arithmetic({ responses_create_params: {} }), 'responses_create_params.input: missing: the row has no prompt'],
    ['a prompt of the wrong type', request({ input: 5 }), 'responses_create_params.input: expected text or a list, got 5'],
    [
      'an unknown role',
      request({ input: [{ role: 'wizard', content: 'hi' }] }),
      'responses_create_params.input.0.role: expected one of "system", "developer", "user", "assistant", "tool", got "wizard"',
    ],
    [
      'message content of the wrong type',
      request({ input: [{ role: 'user', content: 5 }] }),
      'responses_create_params.input.0.content: expected text or a list, got 5',
    ],
    ['tools that are not a list', request({ tools: 'calculator' }), 'responses_create_params.tools: expected a list, got "calculator"'],
    ['a tool without a name', request({ tools: [{ type: 'function' }] }), 'responses_create_params.tools.0.name: missing (expected text)'],
    ['agent_ref as text', arithmetic({ agent_ref: 'arithmetic' }), 'agent_ref: expected an object, got "arithmetic"'],
    ['an empty agent name', arithmetic({ agent_ref: { name: '' } }), 'agent_ref.name: expected at least 1 character, got ""'],
    [
      'an unknown agent',
      arithmetic({ agent_ref: { name: 'nope' } }),
      /^agent_ref\.name: unknown agent "nope" \(built-in agents: math, .*; or pass --agent-server nope=URL\)$/,
    ],
    [
      'no agent at all',
      JSON.stringify({ responses_create_params: ask(), problem: '1+1', answer: 2 }),
      'agent_ref.name: no agent: give the row an agent_ref or pass --agent',
    ],
    [
      'nesting 5000 levels deep',
      `{"responses_create_params":{"input":"hi"},"agent_ref":{"name":"arithmetic"},"problem":"1+1","answer":2,"x":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      'nested deeper than 100 levels',
    ],
  ],
  'prompts with nothing to answer (they failed at run time, or sampled from nothing)': [
    ['an empty list of messages', request({ input: [] }), 'responses_create_params.input: expected a prompt (text, or at least one message), got []'],
    ['empty text', request({ input: '' }), 'responses_create_params.input: expected a prompt (text, or at least one message), got ""'],
    ['blank text', request({ input: ' \n ' }), 'responses_create_params.input: expected a prompt (text, or at least one message), got " \\n "'],
  ],
  'sampling fields out of range': [
    ['a negative temperature', request({ temperature: -1 }), 'responses_create_params.temperature: expected a number ≥ 0, got -1'],
    ['a temperature in words', request({ temperature: 'hot' }), 'responses_create_params.temperature: expected a number, got "hot"'],
    ['a null temperature', request({ temperature: null }), 'responses_create_params.temperature: expected a number, got null'],
    [
      'an infinite temperature',
      '{"responses_create_params":{"input":"hi","temperature":1e999},"agent_ref":{"name":"arithmetic"},"problem":"1+1","answer":2}',
      'responses_create_params.temperature: expected a number, got Infinity',
    ],
    ['top_p above 1', request({ top_p: 5 }), 'responses_create_params.top_p: expected a number ≤ 1, got 5'],
    ['top_p of 0', request({ top_p: 0 }), 'responses_create_params.top_p: expected a number > 0, got 0'],
    ['a negative top_p', request({ top_p: -0.5 }), 'responses_create_params.top_p: expected a number > 0, got -0.5'],
    ['no output tokens', request({ max_output_tokens: 0 }), 'responses_create_params.max_output_tokens: expected a number > 0, got 0'],
    ['a fractional token count', request({ max_output_tokens: 1.5 }), 'responses_create_params.max_output_tokens: expected a whole number, got 1.5'],
    ['a token count as text', request({ max_output_tokens: '100' }), 'responses_create_params.max_output_tokens: expected a number, got "100"'],
    ['metadata as text', request({ metadata: 'seed 1' }), 'responses_create_params.metadata: expected an object, got "seed 1"'],
    [
      'extra_body that is not text',
      request({ metadata: { extra_body: { seed: 1 } } }),
      'responses_create_params.metadata.extra_body: expected text, got {"seed":1}',
    ],
    [
      'extra_body that is not JSON',
      request({ metadata: { extra_body: '{seed' } }),
      'responses_create_params.metadata.extra_body: expected a JSON object as text, e.g. "{\\"seed\\": 1}", got "{seed"',
    ],
    [
      'an extra_body seed that is not whole',
      request({ metadata: { extra_body: '{"seed": 1.5}' } }),
      'responses_create_params.metadata.extra_body: expected its seed to be a whole number, got "{\\"seed\\": 1.5}"',
    ],
  ],
  'task fields each environment needs': [
    ['arithmetic without an answer', arithmetic({ answer: undefined }), 'answer: missing (expected a number)'],
    ['arithmetic with an answer in words', arithmetic({ answer: 'abc' }), 'answer: expected a number, got "abc"'],
    ['arithmetic with a fractional answer', arithmetic({ answer: 2.5 }), 'answer: expected a whole number, got 2.5'],
    ['arithmetic without a problem', arithmetic({ problem: undefined }), 'problem: missing (expected text)'],
    ['arithmetic with no attempts', arithmetic({ max_attempts: 0 }), 'max_attempts: expected a number > 0, got 0'],
    ['math without an answer', task('math', { question: 'what is 1/2?' }), 'expected_answer: missing (a math task needs ground_truth or expected_answer)'],
    ['math with a null answer', task('math', { expected_answer: null }), 'expected_answer: expected text or a number, got null'],
    ['math with a list for ground truth', task('math', { ground_truth: [1] }), 'ground_truth: expected text or a number, got [1]'],
    ['calculator without an answer', task('calculator', {}), 'expected_final_answer: missing (expected a number)'],
    ['calculator with an answer as text', task('calculator', { expected_final_answer: '12' }), 'expected_final_answer: expected a number, got "12"'],
    ['calculator with no steps', task('calculator', { expected_final_answer: 12, max_steps: 0 }), 'max_steps: expected a number > 0, got 0'],
    ['sliding-puzzle without a seed', task('sliding-puzzle', {}), 'seed: missing (expected a number)'],
    ['sliding-puzzle too large', task('sliding-puzzle', { seed: 1, size: 9 }), 'size: expected a number ≤ 6, got 9'],
    ['sliding-puzzle too small', task('sliding-puzzle', { seed: 1, size: 1 }), 'size: expected a number ≥ 2, got 1'],
    ['session-counter with a count as text', task('session-counter', { initial_count: '1', expected_count: 3 }), 'initial_count: expected a number, got "1"'],
    ['session-counter without a target', task('session-counter', { initial_count: 1 }), 'expected_count: missing (expected a number)'],
  ],
};

describe('gymnast collect refuses malformed rows, all of them at once, before any work', { concurrency: 4 }, () => {
  for (const [group, cases] of Object.entries(rowGroups)) {
    const lines = [arithmetic(), '', '   ', ...cases.map(([, line]) => line)];
    const result = shared(() => refused(collectArgs(), { 'rows.jsonl': `${lines.join('\n')}\n` }));
    const firstCaseLine = 4;

    it(`${group}: exit 1, one report of every bad line, no stack trace, nothing written`, async () => {
      const refusal = await result();
      assertRefusedCleanly(refusal);
      const problems = problemsByLine(refusal.stderr, join(refusal.dir, 'rows.jsonl'));
      assert.deepEqual(
        [...problems.keys()],
        cases.map((_, i) => firstCaseLine + i),
        'every bad line, and only those (blank lines counted, not reported)',
      );
      assert.match(refusal.stderr, new RegExp(`^gymnast: invalid-input: ${cases.length} problems in the input:`));
    });

    cases.forEach(([name, , problem], i) => {
      it(`${group}: ${name}`, async () => {
        const refusal = await result();
        const reported = problemsByLine(refusal.stderr, join(refusal.dir, 'rows.jsonl')).get(firstCaseLine + i) ?? [];
        assert.equal(reported.length, 1, `one problem on line ${firstCaseLine + i}: ${reported.join(' | ')}`);
        if (typeof problem === 'string') assert.equal(reported[0], problem);
        else assert.match(reported[0]!, problem);
      });
    });
  }

  it('refuses a task index that is not a whole number ≥ 0 when told to keep it (--keep-task-indices); without, NeMo Gym overwrites it', async () => {
    const refusal = await refused([...collectArgs(), '--keep-task-indices'], {
      'rows.jsonl': `${arithmetic({ _ng_task_index: -1 })}\n${arithmetic({ _ng_task_index: 1.5 })}\n`,
    });
    assertRefusedCleanly(refusal);
    const problems = problemsByLine(refusal.stderr, join(refusal.dir, 'rows.jsonl'));
    assert.deepEqual([...problems.values()], [['_ng_task_index: expected a number ≥ 0, got -1'], ['_ng_task_index: expected a whole number, got 1.5']]);
  });

  it('refuses a row missing the answer its environment needs up front (it used to fail at runtime, and every --resume retried it)', async () => {
    const refusal = await refused(collectArgs(), { 'rows.jsonl': `${arithmetic({ answer: undefined })}\n` });
    assertRefusedCleanly(refusal);
    assert.match(refusal.stderr, /rows\.jsonl:1: answer: missing \(expected a number\)/);
  });

  it("takes an empty prompt where the environment opens the conversation itself (a game's board), and only there", async () => {
    const game = JSON.stringify({ responses_create_params: { input: [] }, agent_ref: { name: 'sliding-puzzle' }, seed: 1 });
    const refusal = await refused(collectArgs(), { 'rows.jsonl': `${game}\n${request({ input: '' })}\n` });
    assertRefusedCleanly(refusal);
    assert.deepEqual(Object.fromEntries(problemsByLine(refusal.stderr, join(refusal.dir, 'rows.jsonl'))), {
      2: ['responses_create_params.input: expected a prompt (text, or at least one message), got ""'],
    });
  });

  it('reads past a byte order mark and CRLF line ends, naming the right line', async () => {
    const refusal = await refused(collectArgs(), { 'rows.jsonl': `\uFEFF${arithmetic()}\r\n${arithmetic({ answer: 'x' })}\r\n` });
    assertRefusedCleanly(refusal);
    assert.deepEqual(Object.fromEntries(problemsByLine(refusal.stderr, join(refusal.dir, 'rows.jsonl'))), { 2: ['answer: expected a number, got "x"'] });
  });

  it('refuses a 50 MB line in a 64 MB heap, streaming past it, and checks the lines around it', async () => {
    // A row that size was held, parsed and run: it took 77 s and 5.3 GB, and in a smaller heap V8
    // died with a native stack and left the run's lock behind.
    const huge = `{"responses_create_params":{"input":"${'a'.repeat(50 * 1024 * 1024)}"},"agent_ref":{"name":"arithmetic"},"problem":"1+1","answer":2}`;
    const started = Date.now();
    const refusal = await refused(
      collectArgs(),
      { 'rows.jsonl': `${arithmetic()}\n${huge}\n${arithmetic({ answer: 'x' })}\n` },
      { nodeFlags: ['--max-old-space-size=64'] },
    );
    assertRefusedCleanly(refusal);
    assert.deepEqual(Object.fromEntries(problemsByLine(refusal.stderr, join(refusal.dir, 'rows.jsonl'))), {
      2: ['line is 50.0 MB, over the limit of 16 MB (--max-line-mb raises it)'],
      3: ['answer: expected a number, got "x"'],
    });
    assert.ok(Date.now() - started < 30_000, `refused in ${Date.now() - started} ms`);
  });

  it('--max-line-mb moves the limit: a 2 MB line is refused under 1 MB, and read and checked under 3 MB', async () => {
    const long = arithmetic({ answer: 'x', note: 'a'.repeat(2 * 1024 * 1024) });
    const files = { 'rows.jsonl': `${arithmetic()}\n${long}\n` };
    const under = await refused([...collectArgs(), '--max-line-mb', '1'], files);
    assertRefusedCleanly(under);
    assert.deepEqual(Object.fromEntries(problemsByLine(under.stderr, join(under.dir, 'rows.jsonl'))), {
      2: ['line is 2.0 MB, over the limit of 1 MB (--max-line-mb raises it)'],
    });
    const over = await refused([...collectArgs(), '--max-line-mb', '3'], files);
    assertRefusedCleanly(over);
    assert.deepEqual(Object.fromEntries(problemsByLine(over.stderr, join(over.dir, 'rows.jsonl'))), { 2: ['answer: expected a number, got "x"'] });
  });

  it('refuses bytes that are not UTF-8 (they were read as U+FFFD), naming the line and the byte offsets', async () => {
    const latin1 = Buffer.concat([
      Buffer.from('{"responses_create_params":{"input":"café? caf'),
      Buffer.from([0xe9]),
      Buffer.from('"},"agent_ref":{"name":"arithmetic"},"problem":"1+1","answer":2}'),
    ]);
    const offset = latin1.indexOf(0xe9);
    const first = `${arithmetic()}\n`;
    const refusal = await refused(collectArgs(), {
      'rows.jsonl': Buffer.concat([Buffer.from(first), latin1, Buffer.from(`\n${arithmetic({ answer: 'x' })}\n`)]),
    });
    assertRefusedCleanly(refusal);
    assert.deepEqual(Object.fromEntries(problemsByLine(refusal.stderr, join(refusal.dir, 'rows.jsonl'))), {
      2: [`not valid UTF-8: byte 0xE9 at byte offset ${offset} of the line (${first.length + offset} of the file; offsets count from 0)`],
      3: ['answer: expected a number, got "x"'],
    });
  });

  it('says what is wrong with a --set value once, with the rows it fails, beside the lines with problems of their own', async () => {
    // It was one identical line per row: 16 of them for a 16-row input.
    const all = await refused([...collectArgs(examples), '--set', 'temperature=hot']);
    assertRefusedCleanly(all);
    assert.equal(all.stderr, 'gymnast: invalid-input: 1 problem in the input:\n  --set temperature: expected a number, got "hot" (all 16 rows)\n');
    const some = await refused([...collectArgs(), '--set', 'temperature=hot', '--set', 'tools=[{"type":"function"}]'], {
      'rows.jsonl': `${arithmetic()}\nnot json\n${arithmetic({ answer: 'x' })}\n`,
    });
    assertRefusedCleanly(some);
    const rows = join(some.dir, 'rows.jsonl');
    assert.equal(
      some.stderr,
      [
        'gymnast: invalid-input: 4 problems in the input:',
        '  --set temperature: expected a number, got "hot" (2 of 3 rows)',
        '  --set tools: 0.name: missing (expected text) (2 of 3 rows)',
        `  ${rows}:2: not valid JSON (Unexpected token 'o', "not json" is not valid JSON)`,
        `  ${rows}:3: answer: expected a number, got "x"`,
        '',
      ].join('\n'),
    );
  });

  for (const [name, content] of [
    ['an empty file', ''],
    ['a file of blank lines', '\n  \n\r\n\n'],
  ] as const) {
    it(`refuses ${name}: no rows to run`, async () => {
      const refusal = await refused(collectArgs(), { 'rows.jsonl': content });
      assertRefusedCleanly(refusal);
      assert.match(refusal.stderr, /rows\.jsonl: no rows to run \(the file is empty or has only blank lines\)/);
    });
  }
});

describe('gymnast collect refuses bad flags and unusable files by name', { concurrency: 4 }, () => {
  const cases: [name: string, args: string[], files: Record<string, string>, message: RegExp][] = [
    ['a missing --input', collectArgs('{dir}/missing.jsonl'), {}, /^gymnast: config: cannot read input \S+missing\.jsonl: no such file or directory$/m],
    ['a directory as --input', collectArgs('{dir}'), {}, /^gymnast: config: cannot read input \S+: is a directory, not a file$/m],
    ['an empty --output', ['collect', '--input', examples, '--output', ''], {}, /^gymnast: config: --output: expected a file path, got ""$/m],
    [
      'an --agent-server without a URL',
      [...collectArgs(examples), '--agent-server', 'judge=localhost'],
      {},
      /--agent-server.*expected an http or https URL for judge, got "localhost"/,
    ],
    [
      'an unknown --agent',
      [...collectArgs(), '--agent', 'nope'],
      { 'rows.jsonl': `${JSON.stringify({ responses_create_params: ask() })}\n` },
      /rows\.jsonl:1: agent_ref\.name: unknown agent "nope"/,
    ],
    [
      'a --set out of range, once for the rows it reaches',
      [...collectArgs(examples), '--set', 'temperature=-1', '--limit', '2'],
      {},
      /^gymnast: invalid-input: 1 problem in the input:\n {2}--set temperature: expected a number ≥ 0, got -1 \(all 2 rows\)\n$/,
    ],
    [
      'a missing --prompt-config',
      [...collectArgs(examples), '--prompt-config', '{dir}/missing.yaml'],
      {},
      /^gymnast: config: cannot read prompt config \S+missing\.yaml: no such file or directory$/m,
    ],
    [
      'a --prompt-config that is not YAML',
      [...collectArgs(examples), '--prompt-config', '{dir}/prompt.yaml'],
      { 'prompt.yaml': 'user: {question\n' },
      /prompt\.yaml:\d+:\d+: not valid YAML or JSON: /,
    ],
    [
      'a --prompt-config without a user template',
      [...collectArgs(examples), '--prompt-config', '{dir}/prompt.yaml'],
      { 'prompt.yaml': 'assistant: "{question}"\n' },
      /prompt\.yaml: user: missing \(expected text\)\n\S+prompt\.yaml: assistant: unknown field/,
    ],
    [
      'a missing --config',
      [...collectArgs(examples), '--config', '{dir}/missing.yaml'],
      {},
      /^gymnast: config: cannot read config \S+missing\.yaml: no such file or directory$/m,
    ],
    ['a directory as --config', [...collectArgs(examples), '--config', '{dir}'], {}, /^gymnast: config: cannot read config \S+: is a directory, not a file$/m],
    [
      'a missing --tokenizer',
      [...collectArgs(examples), '--policy', 'vllm-chat', '--base-url', 'http://127.0.0.1:9', '--tokenizer', '{dir}/missing'],
      {},
      /cannot read \S+missing\/tokenizer\.json/,
    ],
  ];

  for (const [name, args, files, message] of cases) {
    it(`${name}: exit 1, named, nothing written`, async () => {
      const refusal = await refused(args, files);
      assertRefusedCleanly(refusal);
      assert.match(refusal.stderr, message);
    });
  }
});

describe('gymnast refuses what it would send in a header or call as a URL, naming the flag or variable', { concurrency: 4 }, () => {
  const served = [...collectArgs(examples), '--policy', 'vllm-chat', '--tokenizer', qwen3Directory];
  const local = ['--base-url', 'http://127.0.0.1:9'];
  const injected = 'sk-1\r\nX-Injected: yes';
  const cases: [name: string, args: string[], env: Record<string, string | undefined>, message: string][] = [
    ['an --api-key with a line break (a header of its own)', [...served, ...local, '--api-key', injected], {}, '--api-key: must not contain line breaks'],
    [
      'an --api-key with a control character',
      [...served, ...local, '--api-key', 'sk-\u0001'],
      {},
      '--api-key: must not contain control characters or characters beyond Latin-1 (character 4 is one)',
    ],
    [
      '$GYMNAST_API_KEY with a line break',
      [...served, ...local],
      { GYMNAST_API_KEY: injected, OPENAI_API_KEY: 'sk-2' },
      '$GYMNAST_API_KEY: must not contain line breaks',
    ],
    [
      '$OPENAI_API_KEY with a line break',
      [...served, ...local],
      { GYMNAST_API_KEY: undefined, OPENAI_API_KEY: injected },
      '$OPENAI_API_KEY: must not contain line breaks',
    ],
    ['a file: --base-url', [...served, '--base-url', 'file:///etc/passwd'], {}, '--base-url: expected an http or https URL, got file:///etc/passwd'],
    [
      'a --base-url that is no URL, after a good one',
      [...served, ...local, '--base-url', 'localhost:8000'],
      {},
      '--base-url: expected an http or https URL, got localhost:8000',
    ],
    [
      'serve agent, a --policy-api-key with a line break',
      ['serve', 'agent', '--env', 'arithmetic', '--policy', 'vllm-chat', '--tokenizer', qwen3Directory, ...local, '--policy-api-key', injected],
      {},
      '--policy-api-key: must not contain line breaks',
    ],
    [
      'serve agent, an --api-key with a line break',
      ['serve', 'agent', '--env', 'arithmetic', '--port', '0', '--api-key', injected],
      {},
      '--api-key: must not contain line breaks',
    ],
    [
      'serve model, an --api-key with a line break',
      ['serve', 'model', '--embedded', '--port', '0', '--api-key', injected],
      {},
      '--api-key: must not contain line breaks',
    ],
    [
      'serve resources, an --api-key with a line break',
      ['serve', 'resources', 'arithmetic', '--api-key', injected],
      {},
      '--api-key: must not contain line breaks',
    ],
  ];
  for (const [name, args, env, message] of cases) {
    it(`${name}: exit 1, named, the key never shown`, async () => {
      const refusal = await refused(args, {}, { env });
      assertRefusedCleanly(refusal);
      assert.equal(refusal.stderr, `gymnast: config: ${message}\n`);
    });
  }
});

describe('gymnast collect refuses a bad --config file, key by key', { concurrency: 4 }, () => {
  const keys: [key: string, yaml: string, problem: string][] = [
    ['a list for a number', 'concurrency: [1]', 'concurrency: expected a number or auto, got "[1]"'],
    ['a word for a number', 'temperature: hot', 'temperature: expected a number, got "hot"'],
    ['a word for a switch', 'resume: maybe', 'resume: expected true or false, got "maybe"'],
    ['a mapping for a path', 'input: {file: rows.jsonl}', 'input: expected text, got a mapping {"file":"rows.jsonl"}'],
    ['null for a path', 'output: null', 'output: expected text, got nothing (null)'],
    ['a number for a name', 'policy: 5', 'policy: expected text, got 5 (quote it to mean the text)'],
    ['a number for a mapping', 'set: 5', 'set: expected a mapping of key: value, got 5'],
    ['an agent server without a URL', 'agent-server: {judge: localhost}', 'agent-server: expected an http or https URL for judge, got "localhost"'],
    ['an unknown key', 'num_reps: 2', 'num_reps: unknown option (see gymnast collect --help)'],
  ];
  const result = shared(() => refused(['collect', '--config', '{dir}/run.yaml'], { 'run.yaml': `${keys.map(([, yaml]) => yaml).join('\n')}\n` }));

  it('reports every bad key of a file together, exit 1, nothing written', async () => {
    const refusal = await result();
    assertRefusedCleanly(refusal);
    assert.match(refusal.stderr, new RegExp(`^gymnast: config: ${keys.length} problems in \\S+run\\.yaml:`));
  });

  for (const [name, , problem] of keys) {
    it(`${name}: file: key: what was expected, got what`, async () => {
      const refusal = await result();
      assert.ok(refusal.stderr.includes(`  ${join(refusal.dir, 'run.yaml')}: ${problem}\n`), refusal.stderr);
    });
  }

  const files: [name: string, yaml: string, message: RegExp][] = [
    [
      'YAML that does not parse, with line and column',
      'limit: 1\nconcurrency: 2: 3\n',
      /run\.yaml:2:14: not valid YAML or JSON: Nested mappings are not allowed in compact mappings$/m,
    ],
    ['a key given twice', 'limit: 1\nlimit: 2\n', /run\.yaml:2:1: not valid YAML or JSON: Map keys must be unique$/m],
    [
      'a list instead of a mapping',
      '- limit: 1\n',
      /run\.yaml: expected a mapping of option names to values \(e\.g\. num-repeats: 4\), got a list \[\{"limit":1\}\]$/m,
    ],
    ['an empty file', '', /run\.yaml: expected a mapping of option names to values \(e\.g\. num-repeats: 4\), got nothing \(null\)$/m],
  ];
  for (const [name, yaml, message] of files) {
    it(`${name}: exit 1, named, nothing written`, async () => {
      const refusal = await refused([...collectArgs(examples), '--config', '{dir}/run.yaml'], { 'run.yaml': yaml });
      assertRefusedCleanly(refusal);
      assert.match(refusal.stderr, message);
    });
  }
});

describe('the other commands name a file they cannot read', { concurrency: 4 }, () => {
  const cases: [name: string, args: string[], message: RegExp][] = [
    ['aggregate, a directory as input', ['aggregate', '-i', '{dir}', '-o', '{dir}/out/metrics.json'], /^gymnast: \S+: is a directory, not a file$/m],
    ['profile, a missing file', ['profile', '--materialized', '{dir}/missing.jsonl', '--rollouts', '{dir}/missing.jsonl'], /missing\.jsonl: no such file/],
    [
      'render, a missing input',
      ['render', '--tokenizer', '{dir}/missing', '--input', '{dir}/missing.jsonl'],
      /^gymnast: \S+missing\.jsonl: no such file or directory$/m,
    ],
  ];
  for (const [name, args, message] of cases) {
    it(`${name}: exit 1, no stack trace`, async () => {
      const refusal = await refused(args);
      assertRefusedCleanly(refusal);
      assert.match(refusal.stderr, message);
    });
  }
});

describe('what a failed command prints', () => {
  it('prints a bug as one line with a hint, its stack only with GYMNAST_DEBUG=1', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    assert.equal(
      errorReport(bug, false),
      "gymnast: unexpected error: Cannot read properties of undefined (reading 'x')\nThis is a bug in gymnast; run again with GYMNAST_DEBUG=1 to see where it happened, and report it.\n",
    );
    assert.match(errorReport(bug, true), /^gymnast: unexpected error: .*\nTypeError: .*\n\s+at /);
  });

  it('prints a file error as the path and what went wrong, in words', () => {
    const error = Object.assign(new Error("EACCES: permission denied, open 'rows.jsonl'"), { code: 'EACCES', syscall: 'open', path: 'rows.jsonl' });
    assert.equal(errorReport(error, false), 'gymnast: rows.jsonl: permission denied\n');
  });
});
