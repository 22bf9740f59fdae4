import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { collect } from '../../src/collect/collect-run.js';
import { hasKind } from '../../src/core/errors/has-kind.js';
import { SamplingParams } from '../../src/core/index.js';
import { ScriptedPolicy } from '../../src/testing/index.js';
import { CharTokenizer, PlainChatTemplate, TemplateRenderer } from '../../src/tokens/index.js';
import { gymnast } from '../support/run-cli.js';

const input = new URL('../../examples/arithmetic.jsonl', import.meta.url).pathname;

/**
 * A request override whose key reaches a JavaScript object's prototype was taken and lost: `--set
 * __proto__={…}` replaced the request's prototype (nothing of it in the rows written, yet its fields
 * readable through it), `constructor.prototype.x=1` wrote a `constructor` field into every request.
 */
describe('request overrides whose key reaches a prototype are refused, naming it, before anything is written', () => {
  const cases: { name: string; args: (dir: string) => string[]; message: RegExp }[] = [
    {
      name: '--set __proto__',
      args: () => ['--set', '__proto__={"temperature":0.3}'],
      message:
        /^error: option '--set <key=value>' argument '__proto__=\{"temperature":0\.3\}' is invalid\. a key with __proto__ in it reaches a JavaScript object's prototype, not a request field$/m,
    },
    {
      name: '--set constructor.prototype.x',
      args: () => ['--set', 'constructor.prototype.x=1'],
      message: /argument 'constructor\.prototype\.x=1' is invalid\. a key with constructor in it reaches a JavaScript object's prototype/,
    },
    {
      name: '--set metadata.__proto__.x',
      args: () => ['--set', 'metadata.__proto__.x=1'],
      message: /argument 'metadata\.__proto__\.x=1' is invalid\. a key with __proto__ in it/,
    },
    {
      name: "NeMo Gym's +responses_create_params.__proto__",
      args: () => ['+responses_create_params.__proto__.temperature=0.3'],
      message:
        /^gymnast: config: \+responses_create_params\.__proto__\.temperature=0\.3: a key with __proto__ in it reaches a JavaScript object's prototype, not a request field$/m,
    },
    {
      name: 'set: in a --config file',
      args: (dir) => {
        writeFileSync(join(dir, 'run.yaml'), 'set:\n  constructor.prototype.x: 1\n');
        return ['--config', join(dir, 'run.yaml')];
      },
      message: /^gymnast: config: \S+run\.yaml: set: a key with constructor in it reaches a JavaScript object's prototype, not a request field$/m,
    },
  ];
  for (const { name, args, message } of cases) {
    it(name, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gymnast-set-proto-'));
      const output = join(dir, 'out', 'rollouts.jsonl');
      const result = await gymnast('collect', '--input', input, '--output', output, '--limit', '2', '--max-tokens', '8', ...args(dir));
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, message);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(existsSync(join(dir, 'out')), false, 'nothing written');
    });
  }

  it('by the library too, where dotted keys are nested into each request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-set-proto-lib-'));
    const tokenizer = new CharTokenizer();
    const run = (overrides: Record<string, unknown>) =>
      collect({
        input,
        output: join(dir, 'out.jsonl'),
        limit: 2,
        concurrency: 2,
        maxSeqLen: 128,
        maxTurns: 1,
        sampling: SamplingParams.parse({}),
        policy: new ScriptedPolicy({ tokenizer, script: [{ text: '87' }] }),
        renderer: new TemplateRenderer(tokenizer, new PlainChatTemplate()),
        overrides,
      });
    // An own __proto__ key, as JSON.parse and a YAML reader make one (a literal `{__proto__: …}` would set the prototype).
    await assert.rejects(
      run(Object.fromEntries([['__proto__', { temperature: 0.3 }]])),
      (error) => hasKind(error, 'config') && /^--set __proto__: a key with __proto__ in it reaches a JavaScript object's prototype/.test(error.message),
    );
    await assert.rejects(
      run({ 'a.constructor.prototype.x': 1 }),
      (error) => hasKind(error, 'config') && /^--set a\.constructor\.prototype\.x: a key with constructor in it/.test(error.message),
    );
    assert.equal(existsSync(join(dir, 'out.jsonl')), false);
  });
});
