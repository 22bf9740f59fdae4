import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { builtinAgent } from '../../src/collect/agent.js';
import { collect } from '../../src/collect/collect-run.js';
import { nemoGymAgent } from '../../src/collect/nemo-gym-agent.js';
import { resourcesAgent } from '../../src/collect/resources-agent.js';
import { MAX_DURATION_MS } from '../../src/core/duration.js';
import { SamplingParams } from '../../src/core/index.js';
import { parsePolicySpec } from '../../src/policy/index.js';
import { AgentServer } from '../../src/servers/agent/agent-server.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';

/**
 * Node's timers overflow past 2^31-1 ms (~24.8 days) and fire after 1 ms, so a deadline of a month
 * failed every rollout at once. Every deadline the library takes is held to a day, and one past it is
 * a config error naming the option and the cap, before any work.
 */

const tokenizer = new CharTokenizer();
const episode = {
  policy: new ScriptedPolicy({ tokenizer, script: () => ({ text: '2' }) }),
  renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
  maxTurns: 1,
  maxSeqLen: 512,
  sampling: SamplingParams.parse({ max_tokens: 4 }),
};
const month = 30 * MAX_DURATION_MS;
const refusal = (option: string) => ({ kind: 'config', message: new RegExp(`${option}: expected at most a day \\(86400000 ms\\), got ${month}`) });

describe('every deadline the library takes is at most a day', () => {
  it('collect({rolloutTimeoutMs}), before reading the input or writing anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-deadlines-'));
    const input = join(dir, 'in.jsonl');
    writeFileSync(input, `${JSON.stringify({ responses_create_params: { input: '1+1?' }, agent_ref: { name: 'arithmetic' }, problem: '1+1', answer: 2 })}\n`);
    const output = join(dir, 'out', 'rollouts.jsonl');
    await assert.rejects(collect({ input, output, concurrency: 1, ...episode, rolloutTimeoutMs: month }), refusal('rolloutTimeoutMs'));
    assert.equal(existsSync(join(dir, 'out')), false);
  });

  it("a served policy's requestTimeoutMs", () => {
    const spec = { kind: 'vllm-chat', baseUrls: ['http://127.0.0.1:9'], tokenizerDir: '/tokenizer', requestTimeoutMs: month };
    assert.throws(() => parsePolicySpec(spec), { kind: 'config', message: /requestTimeoutMs: expected at most a day \(86400000 ms\)/ });
  });

  it("an agent server's runTimeoutMs", () => {
    assert.throws(() => new AgentServer({ agent: builtinAgent('arithmetic')!, episode, runTimeoutMs: month }), refusal('runTimeoutMs'));
  });

  it('the timeoutMs of a NeMo Gym agent, resources or gymnasium server', () => {
    assert.throws(() => nemoGymAgent({ name: 'judge', urls: ['http://127.0.0.1:9'], timeoutMs: month }), refusal('timeoutMs'));
    for (const protocol of ['resources', 'gymnasium'] as const) {
      assert.throws(() => resourcesAgent({ name: 'tools', urls: ['http://127.0.0.1:9'], protocol, timeoutMs: month }), refusal('timeoutMs'), protocol);
    }
  });

  it('takes a day exactly', async () => {
    const server = new AgentServer({ agent: builtinAgent('arithmetic')!, episode, runTimeoutMs: MAX_DURATION_MS });
    const agent = nemoGymAgent({ name: 'judge', urls: ['http://127.0.0.1:9'], timeoutMs: MAX_DURATION_MS });
    await agent.close();
    assert.ok(server);
  });
});
