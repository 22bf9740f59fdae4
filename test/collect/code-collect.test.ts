import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { environmentAgent } from '../../src/collect/agent.js';
import { collect } from '../../src/collect/collect-run.js';
import type { Environment } from '../../src/environments/environment.js';
import { codeEnvironment } from '../../src/environments/code.js';
import { SandboxPool } from '../../src/sandbox/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';
import { filesLeft, processesLeft } from '../sandbox/host-state.js';

const tokenizer = new CharTokenizer();
const renderer = new TemplateRenderer(tokenizer, new PlainChatTemplate());
const marker = `gymnast-collect-${randomBytes(4).toString('hex')}`;
const solve = 'a, b = map(int, input().split())\nprint(a + b)';

/** Answers by kind, each with the reward it earns: every fifth rollout is hostile (20%). */
const honest: Record<string, [string, number]> = {
  right: [solve, 1],
  wrong: ['a, b = map(int, input().split())\nprint(a * b)', 0],
  crash: ['raise SystemExit(3)', 0],
  'no-code': ['', 0],
};
const hostile: Record<string, [string, number]> = {
  'fork-bomb': ['import os\nwhile True:\n    os.fork()', 0],
  network: ["import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=1)", 0],
  'host-files': ["print(open('/etc/passwd').read())", 0],
  'output-flood': ["while True:\n    print('x' * 1000)", 0],
  'memory-bomb': ['chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))', 0],
  'cpu-spin': ['while True:\n    pass', 0],
  'write-outside': [`open('/tmp/${marker}', 'w').write('x')\nopen('/${marker}', 'w').write('x')`, 0],
  // Hostile and right: a daemon left behind does not change the score, and does not survive the run.
  'daemon-then-right': [`import os\nif os.fork() == 0:\n    os.setsid()\n    os.execv('/usr/bin/sleep', ['sleep', '60', '${marker}'])\n${solve}`, 1],
};
const kinds = [...Object.keys(honest), ...Object.keys(hostile)];

function answerFor(rollout: number): string {
  const names = Object.keys(rollout % 5 === 0 ? hostile : honest);
  const kind = names[Math.floor(rollout / 5) % names.length]!;
  const [code] = honest[kind] ?? hostile[kind]!;
  return code === '' ? `kind: ${kind}\nI do not know.` : `kind: ${kind}\n\`\`\`python\n${code}\n\`\`\``;
}

describe('a collect of 200 code rollouts with a scripted policy, 20% of its programs hostile', () => {
  it('ends every rollout as a success with the right reward, leaves no process and no file behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-code-collect-'));
    const rows = Array.from({ length: 50 }, (_, index) => ({
      responses_create_params: { input: [{ role: 'user', content: `Print a + b (row ${index}).` }] },
      agent_ref: { name: 'code' },
      verifier_metadata: { unit_tests: { inputs: [`${index} 1\n`, `-${index} ${2 * index}\n`], outputs: [`${index + 1}\n`, `${index}\n`] } },
    }));
    writeFileSync(join(dir, 'in.jsonl'), `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
    let rollout = 0;
    const policy = new ScriptedPolicy({ tokenizer, script: () => ({ text: answerFor(rollout++) }) });
    const environment = codeEnvironment({
      pool: new SandboxPool(2),
      limits: { cpuSeconds: 1, wallMs: 5000, memoryBytes: 256 * 1024 * 1024, processes: 16, outputBytes: 4096 },
    });
    const summary = await collect({
      input: join(dir, 'in.jsonl'),
      output: join(dir, 'out.jsonl'),
      numRepeats: 4,
      concurrency: 8,
      maxSeqLen: 4096,
      policy,
      renderer,
      agents: new Map([['code', environmentAgent('code', environment as Environment)]]),
    });
    assert.deepEqual([summary.planned, summary.rollouts, summary.failures], [200, 200, 0]);
    const written = readFileSync(join(dir, 'out.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { reward: number; response: { output: { content?: { text: string }[] }[] }; unit_tests: { status: string }[] });
    const seen = new Map<string, number>();
    for (const row of written) {
      const text = JSON.stringify(row.response);
      const kind = kinds.find((name) => text.includes(`kind: ${name}\\n`))!;
      seen.set(kind, (seen.get(kind) ?? 0) + 1);
      assert.equal(row.reward, (honest[kind] ?? hostile[kind]!)[1], `${kind}: ${JSON.stringify(row.unit_tests)}`);
    }
    assert.equal(
      [...seen].filter(([kind]) => kind in hostile).reduce((total, [, count]) => total + count, 0),
      40,
      'a fifth of them hostile',
    );
    assert.deepEqual(processesLeft(marker), []);
    assert.deepEqual(filesLeft(marker), []);
  });
});
