import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startQwen3Server } from '../support/qwen3.js';

const COLLECTOR = fileURLToPath(new URL('../../bench/node-collector.mjs', import.meta.url));
const run = promisify(execFile);

/** A model that knows 1+1, calls the calculator for 2*3 and reads its result, and gets 5+5 wrong every time. */
function answer({ text }: { text: string }): string {
  const lastTurn = text.slice(text.lastIndexOf('<|im_start|>user'));
  const result = /<result>(-?\d+)<\/result>/.exec(lastTurn);
  if (result) return result[1]!;
  if (text.includes('2*3')) return '<calc>2*3</calc>';
  return text.includes('1+1') ? '2' : '11';
}

const task = (problem: string, answer: number) => ({
  responses_create_params: { input: [{ role: 'user', content: `what is ${problem}?` }] },
  agent_ref: { name: 'arithmetic' },
  problem,
  answer,
});

describe("the bench's Node collector (issue 13's floor under gymnast on Node)", async () => {
  const { server, url } = await startQwen3Server({ respond: answer });
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-node-collector-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, `${[task('1+1', 2), task('2*3', 6), task('5+5', 10)].map((row) => JSON.stringify(row)).join('\n')}\n`);

  for (const http of ['net', 'undici'] as const) {
    it(`plays the arithmetic environment's rules over ${http}: a right answer ends the rollout, a wrong one is retried once, a calculator call is answered with its result`, async () => {
      server.requests.length = 0;
      const output = join(dir, `${http}.jsonl`);
      const { stdout } = await run(process.execPath, [COLLECTOR, '--http', http, url, 'gymnast-test-model', input, output, '2', '2']);
      const report = JSON.parse(stdout) as { rollouts: number; turns: number; startup_cpu_s: number; cpu_s: number; peak_rss_mb: number };
      // 1+1: one turn; 2*3: the call, then the answer; 5+5: two wrong answers. Two repeats of each.
      assert.equal(report.rollouts, 6);
      assert.equal(report.turns, 2 * (1 + 2 + 2));
      assert.equal(server.requests.filter((request) => request.path === '/v1/chat/completions').length, report.turns);
      assert.ok(report.startup_cpu_s > 0 && report.cpu_s > report.startup_cpu_s && report.peak_rss_mb > 0);

      const rows = readFileSync(output, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown> & { response: { output: Record<string, unknown>[] } });
      const byTask = (index: number) =>
        rows.filter((row) => row._ng_task_index === index).sort((a, b) => Number(a._ng_rollout_index) - Number(b._ng_rollout_index));
      assert.deepEqual(
        byTask(0).map((row) => [row._ng_rollout_index, row.reward, row.extracted_answer]),
        [
          [0, 1, '2'],
          [1, 1, '2'],
        ],
      );
      assert.deepEqual(
        byTask(1).map((row) => [row.reward, row.extracted_answer, row.response.output.length]),
        [
          [1, '6', 2],
          [1, '6', 2],
        ],
      );
      assert.deepEqual(
        byTask(2).map((row) => [row.reward, row.extracted_answer, row.response.output.length]),
        [
          [0, '11', 2],
          [0, '11', 2],
        ],
      );
      for (const item of rows.flatMap((row) => row.response.output)) {
        assert.ok((item.prompt_token_ids as number[]).length > 0 && (item.generation_token_ids as number[]).length > 0);
        assert.equal((item.generation_log_probs as number[]).length, (item.generation_token_ids as number[]).length);
      }
      const toolResult = server.requests.find((request) => JSON.stringify(request.body).includes('<result>6</result>'));
      assert.ok(toolResult, 'the calculator result was sent back to the model');
    });
  }

  it('names a wrong --http and exits 1, with no stack trace', async () => {
    const failed = await run(process.execPath, [COLLECTOR, '--http', 'curl', url, 'm', input, join(dir, 'x.jsonl'), '1', '1']).then(
      () => assert.fail('should have failed'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(failed.code, 1);
    assert.equal(failed.stderr, 'node-collector: --http is net or undici, not "curl"\n');
  });
});
