import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinEnvironments, findEnvironment } from '../../src/environments/index.js';

describe('the environment registry', () => {
  it('lists exactly the built-in environments: math, sliding-puzzle, calculator, session-counter, code, code-agent, arithmetic', () => {
    assert.deepEqual(
      builtinEnvironments.map((entry) => entry.name),
      ['math', 'sliding-puzzle', 'calculator', 'session-counter', 'code', 'code-agent', 'arithmetic'],
    );
  });

  it('describes every environment in a line', () => {
    for (const entry of builtinEnvironments) {
      assert.ok(entry.description.length > 0, entry.name);
      assert.ok(!entry.description.includes('\n'), entry.name);
    }
  });

  it('creates, for every entry, a fresh environment carrying the entry name', () => {
    for (const entry of builtinEnvironments) {
      const environment = entry.create();
      assert.equal(environment.name, entry.name);
      assert.equal(typeof environment.reset, 'function');
      assert.equal(typeof environment.step, 'function');
      assert.notEqual(entry.create(), environment);
    }
  });

  it('finds an environment by name, and nothing for an unknown name', () => {
    assert.equal(findEnvironment('calculator')?.name, 'calculator');
    assert.equal(findEnvironment('sliding-puzzle'), builtinEnvironments[1]);
    assert.equal(findEnvironment('nope'), undefined);
    assert.equal(findEnvironment('Math'), undefined, 'names are matched exactly');
  });
});
