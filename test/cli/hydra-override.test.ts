import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHydraOverride } from '../../src/cli/hydra-override.js';

const value = (text: string) => parseHydraOverride(text).value;
const refusal = (text: string) => {
  try {
    parseHydraOverride(text);
  } catch (error) {
    return (error as Error).message;
  }
  return assert.fail(`${text} was read`);
};

// Hydra's override grammar (hydra/grammar/OverrideLexer.g4, OverrideParser.g4), as NeMo Gym's
// command line reads `+key=value`: its Config classes then validate what OmegaConf holds.
describe("NeMo Gym's command-line overrides, read as Hydra reads them", () => {
  it('reads the key, dotted keys as a path, and the kind of override from its prefix', () => {
    assert.deepEqual(parseHydraOverride('+limit=100'), { text: '+limit=100', kind: 'add', path: ['limit'], value: 100 });
    assert.deepEqual(parseHydraOverride('++responses_create_params.temperature=0.6'), {
      text: '++responses_create_params.temperature=0.6',
      kind: 'force-add',
      path: ['responses_create_params', 'temperature'],
      value: 0.6,
    });
    assert.equal(parseHydraOverride('limit=1').kind, 'change');
    assert.deepEqual(parseHydraOverride('~limit'), { text: '~limit', kind: 'delete', path: ['limit'] });
  });

  it('types a lone token as Hydra does: null, booleans in any case, ints with _, floats with exponents, inf and nan', () => {
    assert.deepEqual(['+a=null', '+a=NULL', '+a=true', '+a=False', '+a=1_000', '+a=-3', '+a=0.6', '+a=.5', '+a=5.', '+a=1e-3', '+a=-inf'].map(value), [
      null,
      null,
      true,
      false,
      1000,
      -3,
      0.6,
      0.5,
      5,
      0.001,
      -Infinity,
    ]);
    assert.ok(Number.isNaN(value('+a=nan')));
  });

  it('keeps anything else as text: several tokens, quoted text (with its escapes), escaped characters; whitespace around dropped', () => {
    assert.deepEqual(
      [
        '+a=weather_query.jsonl',
        '+a=data/1.jsonl',
        '+a=1.5.3',
        '+a=truex',
        '+a=http://h:8000/v1',
        '+a=  two words ',
        "+a='0.6'",
        '+a="say \\"hi\\""',
        '+a=a\\,b',
        '+a=a\\ ',
        '+a=',
      ].map(value),
      ['weather_query.jsonl', 'data/1.jsonl', '1.5.3', 'truex', 'http://h:8000/v1', 'two words', '0.6', 'say "hi"', 'a,b', 'a ', ''],
    );
  });

  it('reads lists and dicts, nested', () => {
    assert.deepEqual(value('+a=[1, b, [true]]'), [1, 'b', [true]]);
    assert.deepEqual(value('+a={temperature: 0.6, stop: [x, "y z"], url: http://h:1}'), { temperature: 0.6, stop: ['x', 'y z'], url: 'http://h:1' });
    assert.deepEqual(value('+a={}'), {});
    assert.deepEqual(Object.getPrototypeOf(value('+a={__proto__: 1}')), Object.prototype, 'a __proto__ key is a key, not a prototype');
  });

  it('refuses what Hydra refuses or gymnast cannot mean, naming the argument', () => {
    assert.match(refusal('+a=x,y'), /^\+a=x,y: a comma-separated value is a Hydra sweep/);
    assert.match(refusal('+a=range(1,3)'), /^\+a=range\(1,3\): range\(…\) is a Hydra function/);
    assert.match(refusal('+a=${oc.env:HOME}'), /interpolations are resolved by NeMo Gym's config/);
    assert.match(refusal('+a=café'), /^\+a=café: unexpected "é" in the value \(quote the value to mean it as text\)$/);
    assert.match(refusal('+a=[1,2'), /the value ends too soon \(a list closes with \]\)/);
    assert.match(refusal("+a='open"), /its ' quote is not closed/);
    assert.match(refusal('+a-b=1'), /^\+a-b=1: not a Hydra override/);
    assert.match(refusal('data.jsonl'), /^data\.jsonl: expected a flag or a NeMo Gym override \(\+data\.jsonl=value\)$/);
  });
});
