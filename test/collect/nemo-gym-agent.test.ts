import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { collect } from '../../src/collect/collect-run.js';
import { nemoGymAgent } from '../../src/collect/nemo-gym-agent.js';
import { ROW_SCHEMA_VERSION, SamplingParams } from '../../src/core/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';

/** A stand-in NeMo Gym agent server: answers /run like the blackjack agent; a row asking for it fails or omits its reward. */
const calls: Record<string, unknown>[] = [];
const server: Server = createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const row = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
  calls.push(row);
  const send = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (row.behaviour === 'crash') return send(500, { error: 'agent exploded' });
  if (row.behaviour === 'slow') return setTimeout(() => send(200, { response: { output: [] }, reward: 1 }), 1_500);
  if (row.behaviour === 'busy') return setTimeout(() => send(503, { error: 'busy' }), 100);
  if (row.behaviour === 'no-reward') return send(200, { response: { output: [] } });
  if (row.behaviour === 'no-persist') return send(200, { response: { output: [] }, reward: 0, _ng_no_persist: true });
  if (row.behaviour === 'bad-field') return send(200, { response: { output: [] }, reward: 1, extracted_answer: 42 });
  if (row.behaviour === 'judge')
    return send(200, { response: { output: [] }, reward: 0, _ng_failure_class: 'judge_failed', _ng_failure_judge_error: 'no verdict' });
  send(200, {
    response: { output: [], usage: { input_tokens: 10, output_tokens: 4, total_tokens: 14 } },
    reward: 1,
    terminated: true,
    _ng_task_index: 999,
    agent_ref: { name: 'liar' },
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('NeMo Gym agent servers', () => {
  it('runs rows through POST /run, stamps its own keys, and records failures without inventing rewards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-agent-'));
    const input = join(dir, 'in.jsonl');
    const rows = ['ok', 'crash', 'no-reward', 'judge', 'no-persist', 'bad-field'].map((behaviour) =>
      JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: 'Deal me in.' }] }, agent_ref: { name: 'blackjack' }, behaviour }),
    );
    writeFileSync(input, `${rows.join('\n')}\n`);
    const agent = nemoGymAgent({ name: 'blackjack', urls: [url], maxAttempts: 2 });
    const tokenizer = new CharTokenizer();
    const before = Date.now();
    const summary = await collect({
      input,
      output: join(dir, 'out.jsonl'),
      concurrency: 2,
      policy: new ScriptedPolicy({ tokenizer, script: [{ text: 'unused' }] }),
      renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
      maxSeqLen: 128,
      maxTurns: 2,
      sampling: SamplingParams.parse({}),
      agents: new Map([['blackjack', agent]]),
    });
    await agent.close();

    const read = (path: string) =>
      readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const [success] = read(summary.paths.output);
    assert.equal(success!.reward, 1);
    assert.equal(success!._ng_task_index, 0, "the row's keys, not the agent's");
    assert.deepEqual(success!.agent_ref, { name: 'blackjack' });
    assert.equal(success!.schema_version, ROW_SCHEMA_VERSION);
    assert.deepEqual([summary.rollouts, summary.failures], [1, 5], 'agent-server successes count like any other');
    const { rollout_metrics: rolloutMetrics } = summary.aggregate[0]!;
    assert.deepEqual(
      [rolloutMetrics.num_samples, rolloutMetrics.num_samples_without_record, rolloutMetrics.num_failures, rolloutMetrics.mean_total_reward],
      [1, 1, 5, 1],
      'and in rollout_metrics, without turns to measure',
    );
    assert.ok((success!.duration_ms as number) > 0, 'the real duration of the /run call');
    const failures = read(summary.paths.failures);
    assert.deepEqual(failures.map((row) => [row.behaviour, row._ng_failure_class]).sort(), [
      ['bad-field', 'agent-error'],
      ['crash', 'agent-error'],
      ['judge', 'env-error'],
      ['no-persist', 'aborted'],
      ['no-reward', 'agent-error'],
    ]);
    assert.match(JSON.stringify(failures.find((row) => row.behaviour === 'bad-field')!.error), /extracted_answer does not fit a result row/);
    const judged = failures.find((row) => row.behaviour === 'judge')!;
    assert.equal(judged.nemo_gym_failure_class, 'judge_failed', "NeMo Gym's own class is kept beside ours");
    assert.equal(judged._ng_failure_judge_error, 'no verdict');
    assert.ok(failures.every((row) => !('reward' in row)));
    // When each /run was sent, for the timeline of `gymnast view`: successes and failures alike.
    for (const row of [success!, ...failures])
      assert.ok((row.started_at as number) >= before && (row.started_at as number) <= Date.now(), String(row.behaviour));
    assert.equal(calls.filter((row) => row.behaviour === 'crash').length, 2, '5xx retried up to max attempts');
    assert.equal((calls[0]!._ng_rollout_index as number) >= 0, true, 'the agent receives the materialized row');
  });

  describe('--rollout-timeout', () => {
    const planned = (behaviour: string) => ({
      responses_create_params: { input: [] },
      agent_ref: { name: 'blackjack' },
      _ng_task_index: 0,
      _ng_rollout_index: 0,
      behaviour,
    });
    const runOnce = async (behaviour: string, timeoutMs: number) => {
      const agent = nemoGymAgent({ name: 'blackjack', urls: [url], maxAttempts: 10, timeoutMs });
      const started = performance.now();
      const outcome = await agent.run(planned(behaviour), { control: { signal: new AbortController().signal } } as Parameters<typeof agent.run>[1]);
      await agent.close();
      return { outcome, elapsedMs: performance.now() - started };
    };

    it('bounds the whole rollout, retries and backoff included', async () => {
      const { outcome, elapsedMs } = await runOnce('busy', 600);
      assert.equal(outcome.kind, 'failure');
      assert.equal((outcome.row as { _ng_failure_class: string })._ng_failure_class, 'timeout');
      // Unbounded, ten attempts with their backoff (250 ms doubling) take over 30 s; the slack is for a loaded machine.
      assert.ok(elapsedMs < 3_000, `a 600 ms rollout timeout took ${Math.round(elapsedMs)} ms`);
    });

    it('never re-sends a /run that timed out: the agent may still be running it', async () => {
      const before = calls.filter((row) => row.behaviour === 'slow').length;
      const { outcome, elapsedMs } = await runOnce('slow', 300);
      assert.equal((outcome.row as { _ng_failure_class: string })._ng_failure_class, 'timeout');
      assert.equal(calls.filter((row) => row.behaviour === 'slow').length - before, 1, 'sent once');
      // The agent answers after 1,500 ms: ending before that is the deadline's doing, however loaded the machine.
      assert.ok(elapsedMs < 1_400, `took ${Math.round(elapsedMs)} ms`);
    });
  });
});
