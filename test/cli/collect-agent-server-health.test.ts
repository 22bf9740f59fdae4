import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtinAgent } from '../../src/collect/agent.js';
import type { HealthSummary } from '../../src/collect/health/health-summary.js';
import { runSampling } from '../../src/core/sampling-params.js';
import { createPolicy } from '../../src/policy/index.js';
import { AgentServer } from '../../src/servers/agent/agent-server.js';
import { gymnast } from '../support/run-cli.js';
import { InferenceServer } from '../../src/testing/index.js';
import { qwen3Directory, qwen3Template, qwen3Tokenizer } from '../support/qwen3.js';

const input = new URL('../../examples/arithmetic.jsonl', import.meta.url).pathname;
/** One past Qwen3's vocabulary, [0, 151669). */
const OUTSIDE_VOCABULARY = 151_999;

interface EditableRow {
  messages?: { role: string; token_ids?: number[]; generation_logprobs?: number[] }[];
  response: { output: Record<string, unknown>[] };
}

/**
 * A row no sampler could have made: its first sampled token an id outside the vocabulary with a
 * logprob above 0, in the messages and in the training fields alike (so the two copies agree: one
 * model call, as the agent server runs one turn).
 */
function impossible(row: EditableRow): EditableRow {
  // A failure row (no messages) goes back as it is, for the spec to name.
  const sampled = row.messages?.find((message) => message.role === 'assistant' && (message.generation_logprobs?.length ?? 0) > 0);
  if (!sampled) return row;
  sampled.token_ids![0] = OUTSIDE_VOCABULARY;
  sampled.generation_logprobs![0] = 0.5;
  const [item] = row.response.output.filter((entry) => Array.isArray(entry.generation_token_ids) && (entry.generation_token_ids as number[]).length > 0);
  (item!.generation_token_ids as number[])[0] = OUTSIDE_VOCABULARY;
  (item!.generation_log_probs as number[])[0] = 0.5;
  return row;
}

const readJson = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;
const healthOf = (output: string) => readJson<HealthSummary>(output.replace(/\.jsonl$/, '_health.json'));

/**
 * `collect --agent-server NAME=URL`: the agent server samples with a model of its own (here Qwen3, whose
 * ids mean other text in the embedded model's tokenizer), so the flags' policy did not make its rows.
 * They were decode-checked with the embedded tokenizer all the same: every clean rollout was a
 * token-text-mismatch, and collect and gymnast health failed the run.
 */
describe("collect --agent-server: rows an agent server's own model sampled are checked with its tokenizer, or not decoded at all", () => {
  let agentUrl = '';
  let faultyUrl = '';
  const closing: (() => Promise<unknown>)[] = [];

  before(async () => {
    const model = new InferenceServer({
      tokenizer: await qwen3Tokenizer(),
      template: await qwen3Template(),
      model: 'qwen3',
      respond: ({ seed }) => `It is ${seed % 100}.`,
    });
    const url = await model.start();
    closing.push(() => model.close());
    const { policy, renderer, maxModelLen } = await createPolicy({ kind: 'vllm-chat', baseUrls: [url], tokenizerDir: qwen3Directory });
    const agent = new AgentServer({
      agent: builtinAgent('arithmetic')!,
      episode: { policy, renderer, maxTurns: 1, maxSeqLen: maxModelLen, onMaxTokens: 'continue', sampling: runSampling({ temperature: 1, maxTokens: 32 }) },
      port: 0,
    });
    agentUrl = await agent.start();
    closing.push(
      () => agent.close(),
      () => policy.close(),
    );
    // The same agent server behind a proxy that makes each row impossible, as a faulty deployment might.
    const faulty = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      if (request.url !== '/run') return response.writeHead(404).end();
      const ran = await fetch(`${agentUrl}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(impossible((await ran.json()) as EditableRow)));
    });
    await new Promise<void>((resolve) => faulty.listen(0, '127.0.0.1', resolve));
    faultyUrl = `http://127.0.0.1:${(faulty.address() as AddressInfo).port}`;
    closing.push(() => new Promise((resolve) => faulty.close(resolve)));
  });
  after(async () => {
    for (const close of closing.reverse()) await close();
  });

  const collect = async (server: string, ...args: string[]) => {
    const output = join(mkdtempSync(join(tmpdir(), 'gymnast-agent-server-health-')), 'out.jsonl');
    const result = await gymnast('collect', '--input', input, '--limit', '4', '--output', output, '--agent-server', `arithmetic=${server}`, ...args);
    return { ...result, output };
  };
  const unknownTokenizer =
    /^4 rollout\(s\) of arithmetic, sampled by an agent server's own model, whose tokenizer the run does not know; pass --tokenizer DIR to check them$/;

  it('without --tokenizer: records which agents ran remotely, skips their decode and vocabulary checks with a note, and gymnast health does the same later', async () => {
    const run = await collect(agentUrl);
    assert.equal(run.code, 0, run.stderr);
    const identity = readJson<{ config: Record<string, unknown> }>(run.output.replace(/\.jsonl$/, '_run.json'));
    assert.deepEqual(identity.config.remote_agents, ['arithmetic']);
    for (const summary of [healthOf(run.output), JSON.parse((await gymnast('health', run.output, '--json')).stdout) as HealthSummary]) {
      assert.deepEqual(summary.checks, {}, 'no token-text-mismatch: the embedded tokenizer did not make these ids');
      assert.deepEqual(
        summary.skipped.map((skipped) => skipped.check),
        ['token-text-mismatch', 'token-id-out-of-vocabulary'],
      );
      for (const skipped of summary.skipped) assert.match(skipped.reason, unknownTokenizer);
      assert.equal(summary.rollouts.healthy, 4);
    }
  });

  it('with --tokenizer DIR: decodes them with it', async () => {
    const run = await collect(agentUrl, '--tokenizer', qwen3Directory);
    assert.equal(run.code, 0, run.stderr);
    const summary = healthOf(run.output);
    assert.deepEqual({ checks: summary.checks, skipped: summary.skipped, healthy: summary.rollouts.healthy }, { checks: {}, skipped: [], healthy: 4 });
  });

  it('impossible tokens: the checks that need no tokenizer still run on them (logprobs above 0), ids outside the vocabulary are found with it', async () => {
    const run = await collect(faultyUrl);
    assert.equal(run.code, 1, 'unhealthy past --max-unhealthy 0');
    assert.deepEqual(Object.keys(healthOf(run.output).checks), ['logprobs-positive']);
    assert.match(run.stderr, /health: 4 rollouts: 0 healthy, 0 warning, 4 unhealthy, 0 failed \(logprobs-positive 4\)/);

    const checked = await gymnast('health', run.output, '--tokenizer', qwen3Directory, '--json');
    assert.equal(checked.code, 1);
    const summary = JSON.parse(checked.stdout) as HealthSummary;
    assert.deepEqual(summary.skipped, []);
    assert.equal(summary.checks['token-id-out-of-vocabulary']?.findings, 8, 'each rollout twice: in its messages and its training fields');
    assert.equal(summary.checks['logprobs-positive']?.findings, 4);
    const verdicts = readFileSync(run.output.replace(/\.jsonl$/, '_health.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { findings: { check: string; message: string }[] });
    const outside = verdicts[0]!.findings.filter((finding) => finding.check === 'token-id-out-of-vocabulary').map((finding) => finding.message);
    assert.deepEqual(
      outside.map((message) => message.replace(/\[\d+\]/, '[i]')),
      [
        `messages[i].token_ids[0] = ${OUTSIDE_VOCABULARY} is outside the vocabulary [0, 151669)`,
        `response.output[i].generation_token_ids[0] = ${OUTSIDE_VOCABULARY} is outside the vocabulary [0, 151669)`,
      ],
    );
  });
});
