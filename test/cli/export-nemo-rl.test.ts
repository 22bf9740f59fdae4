import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { countZeroTurnRows } from '../../src/collect/zero-turn-rows.js';
import { readFullRow } from '../../src/core/index.js';
import { RemotePolicy, vllmCompletionsBackend } from '../../src/policy/index.js';
import { qwen3Tokenizer, startQwen3Server } from '../support/qwen3.js';
import { gymnast } from '../support/run-cli.js';
import { calculator, collectToolCallTasks } from '../support/tool-call-run.js';

interface Exported {
  _ng_task_index: number;
  message_log: { role: string; token_ids: number[]; generation_logprobs: number[]; token_loss_mask: number[] }[];
  length: number;
  loss_multiplier: number;
  total_reward: number;
  zero_turn?: boolean;
  token_drift_count?: number;
}
type Row = { messages: { role: string; token_ids: number[]; generation_logprobs?: number[] }[]; reward: number } & Record<string, unknown>;

const readJsonl = <T>(path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
/** Rollout rows as gymnast's readers read them: every message with its ids, which the file stores once, on response.output. */
const readRows = (path: string) => readJsonl<unknown>(path).map((value, i) => readFullRow(value, `${path}:${i + 1}`).row as unknown as Row);

const tokenizer = await qwen3Tokenizer();

// The server spells its replies as a real sampler may, not as encode(text): ids re-derived from text would differ.
const { server, url } = await startQwen3Server({ tokenization: 'non-canonical', respond: calculator });
const policy = new RemotePolicy({ backend: vllmCompletionsBackend, urls: [url], tokenizer, model: 'm', maxModelLen: 4096 });
after(() => policy.close());

/** Two arithmetic tasks answered right after a tool call, and a third whose prompt alone is longer than max_seq_len (a zero-turn row). */
async function run(): Promise<{ dir: string; rollouts: string }> {
  server.requests.length = 0;
  const dir = mkdtempSync(join(tmpdir(), 'gymnast-export-'));
  const rollouts = join(dir, 'rollouts.jsonl');
  await collectToolCallTasks(policy, dir, rollouts);
  return { dir, rollouts };
}

/** What the model server was sent and sampled, call by call: the prompt, the ids and logprobs. */
const modelCalls = () =>
  server.requests
    .filter((request) => request.path === '/v1/completions')
    .map((request) => {
      const choice = (request.response!.body as { choices: { token_ids: number[]; logprobs: { token_logprobs: number[] } }[] }).choices[0]!;
      return { prompt: (request.body as { prompt: number[] }).prompt, ids: choice.token_ids, logprobs: choice.logprobs.token_logprobs };
    });

/** Each generated message of a NeMo RL message log with the ids before it: the prompt a trainer scores it in. */
const inContext = (log: Exported['message_log']) =>
  log.flatMap((message, i) =>
    message.token_loss_mask.includes(1)
      ? [{ prompt: log.slice(0, i).flatMap((earlier) => earlier.token_ids), ids: message.token_ids, logprobs: message.generation_logprobs }]
      : [],
  );

/** The run with its first row's first turn drifted, as the engine records it when the template would render the history differently. */
async function driftedRun(): Promise<{ dir: string; rollouts: string }> {
  const { dir, rollouts } = await run();
  const rows = readJsonl<Row & { turns: Record<string, unknown>[] }>(rollouts);
  rows[0]!.turns[0]!.token_drift = { source: 'template', at: 5, ledger: '1+2?', template: '1 + 2?' };
  rows[0]!.token_drift_count = 1;
  const drifted = join(dir, 'drifted.jsonl');
  writeFileSync(drifted, `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
  return { dir, rollouts: drifted };
}

describe('gymnast export --format nemo-rl', () => {
  it("writes NeMo RL's message_log per rollout: the messages' token ids, generation logprobs, a loss mask on generated tokens only, and the reward", async () => {
    const { dir, rollouts } = await run();
    const out = join(dir, 'train.jsonl');
    const cli = await gymnast('export', '--format', 'nemo-rl', '-i', rollouts, '-o', out);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /wrote 3 rollouts to .*train\.jsonl, 1 masked \(loss_multiplier 0: 1 zero-turn/);
    const rows = readRows(rollouts);
    const exported = readJsonl<Exported>(out);
    exported.forEach((record, i) => {
      const row = rows[i]!;
      assert.deepEqual(
        record.message_log.map((message) => message.token_ids),
        row.messages.map((message) => message.token_ids),
      );
      assert.equal(record.total_reward, row.reward);
      assert.equal(
        record.length,
        row.messages.reduce((total, message) => total + message.token_ids.length, 0),
      );
      for (const [j, message] of record.message_log.entries()) {
        const generated = row.messages[j]!.generation_logprobs;
        assert.equal(message.generation_logprobs.length, message.token_ids.length, 'one logprob per token, 0 where not generated');
        assert.deepEqual(
          message.token_loss_mask,
          message.token_ids.map(() => (generated ? 1 : 0)),
        );
        if (generated) assert.deepEqual(message.generation_logprobs, generated);
      }
    });
    const trained = exported.filter((record) => !record.zero_turn);
    assert.equal(trained.length, 2);
    assert.ok(trained.every((record) => record.loss_multiplier === 1));
  });

  it('exports exactly the ids and logprobs the model server sampled, each after the very prompt it was sampled from, though they are not encode(text)', async () => {
    const { dir, rollouts } = await run();
    const calls = modelCalls();
    const out = join(dir, 'train.jsonl');
    assert.equal((await gymnast('export', '--format', 'nemo-rl', '-i', rollouts, '-o', out)).code, 0);
    assert.deepEqual(
      readJsonl<Exported>(out).flatMap((record) => inContext(record.message_log)),
      calls,
    );
    assert.equal(calls.length, 4);
    assert.ok(
      calls.some((call) => !isDeepStrictEqual(call.ids, tokenizer.encode(tokenizer.decode(call.ids)))),
      'the server spelled a reply non-canonically',
    );
  });

  it('keeps a zero-turn row (the prompt alone filled the sequence) marked and masked, and collect can count them', async () => {
    const { dir, rollouts } = await run();
    const out = join(dir, 'train.jsonl');
    await gymnast('export', '--format', 'nemo-rl', '-i', rollouts, '-o', out);
    const [zeroTurn] = readJsonl<Exported>(out).filter((record) => record.zero_turn);
    assert.equal(zeroTurn!.loss_multiplier, 0);
    assert.ok(zeroTurn!.message_log.every((message) => message.token_loss_mask.every((mask) => mask === 0)));
    assert.equal(await countZeroTurnRows(rollouts), 1);
  });

  it("builds the log from response.output's training fields when a row has no messages (agent servers), as NeMo RL's Gym postprocessing does", async () => {
    const { dir, rollouts } = await run();
    const calls = modelCalls();
    const [row] = readRows(rollouts);
    const { messages, turns: _turns, num_turns: _numTurns, ...agentServerRow } = row!;
    const input = join(dir, 'agent-server.jsonl');
    writeFileSync(input, `${JSON.stringify(agentServerRow)}\n`);
    const out = join(dir, 'train.jsonl');
    const cli = await gymnast('export', '--format', 'nemo-rl', '-i', input, '-o', out);
    assert.equal(cli.code, 0, cli.stderr);
    const [record] = readJsonl<Exported>(out);
    const lastGeneration = messages.findLastIndex((message) => message.role === 'assistant');
    assert.deepEqual(
      record!.message_log.flatMap((message) => message.token_ids),
      messages.slice(0, lastGeneration + 1).flatMap((message) => message.token_ids),
    );
    assert.deepEqual(
      record!.message_log.map((message) => message.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
    assert.deepEqual(inContext(record!.message_log), calls.slice(0, 2));
  });

  describe('--on-drift: a row whose turns drifted from the chat template', () => {
    const exportDrifted = async (...flags: string[]) => {
      const { dir, rollouts } = await driftedRun();
      const out = join(dir, 'train.jsonl');
      const cli = await gymnast('export', '--format', 'nemo-rl', '-i', rollouts, '-o', out, ...flags);
      assert.equal(cli.code, 0, cli.stderr);
      return { cli, exported: readJsonl<Exported>(out) };
    };

    it('masks it by default (loss_multiplier 0), marked with its token_drift_count, and says so', async () => {
      const { cli, exported } = await exportDrifted();
      assert.equal(exported.length, 3);
      assert.deepEqual(
        exported.map((record) => [record._ng_task_index, record.loss_multiplier, record.token_drift_count]),
        [
          [0, 0, 1],
          [1, 1, undefined],
          [2, 0, undefined],
        ],
      );
      assert.match(cli.stdout, /wrote 3 rollouts .*, 2 masked \(loss_multiplier 0: 1 zero-turn.*; 1 with token drift\)/);
      assert.match(cli.stderr, /^1 row with token drift masked \(--on-drift mask\)$/m);
    });

    it('leaves it out with drop', async () => {
      const { cli, exported } = await exportDrifted('--on-drift', 'drop');
      assert.deepEqual(
        exported.map((record) => record._ng_task_index),
        [1, 2],
      );
      assert.match(cli.stdout, /wrote 2 rollouts/);
      assert.match(cli.stderr, /^1 row with token drift dropped \(--on-drift drop\)$/m);
    });

    it('trains on it with keep, still marked', async () => {
      const { cli, exported } = await exportDrifted('--on-drift', 'keep');
      assert.deepEqual([exported[0]!.loss_multiplier, exported[0]!.token_drift_count], [1, 1]);
      assert.match(cli.stderr, /^1 row with token drift kept with loss_multiplier 1 \(--on-drift keep\)$/m);
    });

    it('refuses another value, naming the flag and the choices', async () => {
      const { dir, rollouts } = await run();
      const cli = await gymnast('export', '--format', 'nemo-rl', '-i', rollouts, '-o', join(dir, 'train.jsonl'), '--on-drift', 'ignore');
      assert.notEqual(cli.code, 0);
      assert.match(cli.stderr, /--on-drift.*'ignore' is invalid.*mask, drop, keep/);
      assert.doesNotMatch(cli.stderr, /\n\s+at /);
    });
  });

  it('refuses a row with nothing to train on (no token ids anywhere), naming file and line', async () => {
    const rollouts = new URL('../fixtures/nemo-gym/example_single_tool_call/example_rollouts.jsonl', import.meta.url).pathname;
    const out = join(mkdtempSync(join(tmpdir(), 'gymnast-export-')), 'train.jsonl');
    const cli = await gymnast('export', '--format', 'nemo-rl', '-i', rollouts, '-o', out);
    assert.notEqual(cli.code, 0);
    assert.match(cli.stderr, new RegExp(`${rollouts}:1: nothing to train on`));
  });
});
