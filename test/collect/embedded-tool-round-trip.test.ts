import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Message } from '../../src/core/index.js';
import { CALCULATOR_TOOL } from '../../src/environments/index.js';
import { evaluateArithmetic } from '../../src/environments/arithmetic-expression.js';
import { resourcesServerFor } from '../../src/servers/resources/resources-server-for.js';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../../bin/gymnast.js', import.meta.url));

// `gymnast serve resources arithmetic` as a laptop runs it: a NeMo Gym resources server whose
// calculator is `POST /calculator`, on loopback. Rows offer the tool in the Responses API's shape.
const server = resourcesServerFor('arithmetic', { port: 0 })!;
const url = await server.start();
after(() => server.close());

const tool = {
  type: 'function',
  name: CALCULATOR_TOOL.function.name,
  description: CALCULATOR_TOOL.function.description,
  parameters: CALCULATOR_TOOL.function.parameters,
  strict: true,
};
const problems = ['37*86', '45*67', '23+29+714', '58+31'];
const rows = problems.map((problem) => ({
  responses_create_params: { input: [{ role: 'user', content: `what is ${problem}?` }], tools: [tool] },
  agent_ref: { type: 'responses_api_agents', name: 'calculator_agent' },
  problem,
  answer: evaluateArithmetic(problem),
}));

type Row = {
  reward: number;
  problem: string;
  messages: Message[];
  response: { output: { type: string; name?: string; arguments?: string; output?: string }[] };
};

describe('a full tool round trip on a CPU: collect --resources-server with the embedded model against a calculator resources server', () => {
  it('the model calls the calculator, the server computes it, the model answers with its result, and /verify rewards it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-tool-round-trip-'));
    const input = join(dir, 'rows.jsonl');
    const output = join(dir, 'rollouts.jsonl');
    writeFileSync(input, rows.map((row) => JSON.stringify(row)).join('\n'));
    await run(
      process.execPath,
      [
        bin,
        'collect',
        '--input',
        input,
        '--output',
        output,
        '--resources-server',
        `calculator_agent=${url}`,
        '--temperature',
        '0',
        '--seed',
        '1',
        '--max-turns',
        '4',
      ],
      { timeout: 60_000 },
    );

    assert.equal(readFileSync(output.replace('.jsonl', '_failures.jsonl'), 'utf8'), '');
    const results = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Row)
      .sort((a, b) => problems.indexOf(a.problem) - problems.indexOf(b.problem));
    assert.deepEqual(
      results.map((row) => row.problem),
      problems,
    );
    for (const row of results) {
      const answer = String(evaluateArithmetic(row.problem));
      assert.equal(row.reward, 1, `${row.problem}: ${JSON.stringify(row.messages.map((message) => message.content))}`);
      assert.equal(row.messages.at(-1)!.content, answer, 'the last word is the answer');
      const calls = row.response.output.filter((item) => item.type === 'function_call');
      const outputs = row.response.output.filter((item) => item.type === 'function_call_output');
      if (row.problem === '58+31') {
        assert.deepEqual(calls, [], 'a 2-digit sum is answered without the tool');
        continue;
      }
      assert.deepEqual(
        calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments!) as unknown })),
        [{ name: 'calculator', arguments: { expression: row.problem } }],
      );
      // The server's own reply body, as NeMo Gym's agent passes it on.
      assert.deepEqual(
        outputs.map((item) => item.output),
        [`{"result":${answer}}`],
      );
      const toolMessage = row.messages.find((message) => message.role === 'tool')!;
      assert.equal(toolMessage.content, `{"result":${answer}}`);
      assert.equal(toolMessage.tool_call_id, row.messages.find((message) => message.tool_calls)!.tool_calls![0]!.id);
    }
  });
});
