import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rowToTask } from '../../src/collect/agent.js';
import { DatasetRow } from '../../src/collect/dataset-row.js';
import { readDatasetRow } from '../../src/collect/read-dataset-row.js';
import { plainRequest } from '../../src/collect/plain-request.fast.js';
import { RequestFields } from '../../src/collect/request-fields.js';
import { EpisodeTask } from '../../src/core/episode-task.js';
import type { MaterializedRow } from '../../src/core/result-row.js';
import { oneChangeVariants } from '../support/one-change-variants.js';

const REQUESTS: Record<string, unknown>[] = [
  { input: [{ role: 'user', content: 'what is 1+2?' }] },
  {
    temperature: 0.5,
    top_p: 0.9,
    max_output_tokens: 8,
    seed: 2,
    metadata: { extra_body: '{"seed":1}', user: 'me' },
    input: [
      { type: 'message', role: 'system', content: 's' },
      { role: 'developer', content: 'd' },
      { role: 'assistant', content: 'a' },
      { role: 'tool', content: 't' },
    ],
    tools: [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object', properties: { a: { type: 'string' } } }, strict: true }],
  },
  { input: 'plain text', metadata: null },
];

const ROWS: Record<string, unknown>[] = [
  { responses_create_params: REQUESTS[0], agent_ref: { name: 'arithmetic' }, problem: '1+2', answer: 3 },
  {
    problem: '1+2',
    agent_ref: { type: 'responses_api_agents', name: 'arithmetic', extra: 1 },
    responses_create_params: { metadata: {}, ...REQUESTS[1] },
    _ng_task_index: 4,
    nested: { list: [1, { a: 2 }] },
  },
  {
    responses_create_params: {
      input: [
        { role: 'user', content: 'q', zz: 1 },
        { role: 'user', content: [{ type: 'input_text', text: 'p' }] },
      ],
    },
  },
];

const REPLACEMENTS: unknown[] = [
  undefined,
  null,
  -1,
  0,
  1.5,
  -0.5,
  2 ** 53,
  1e20,
  'x',
  '',
  true,
  {},
  [],
  [1.5],
  ['x'],
  { zz: 1 },
  { role: 'user', content: 'q' },
  '{"seed":3}',
  '{"seed":1e20}',
  '{"seed":"3"}',
  '[1]',
  'not json',
];

/** Each variant as a line of input would give it: written as JSON and parsed back. */
const parsedVariants = (base: unknown) =>
  [...oneChangeVariants(base, { replacements: REPLACEMENTS, maxDepth: 5 })]
    .filter((variant) => variant !== undefined)
    .map((variant) => JSON.parse(JSON.stringify(variant)) as unknown);

/** A line with a `__proto__` key (JSON.parse makes it an own key) spliced in after the first `{` of `at`. */
const withProto = (value: unknown, at: string) => JSON.parse(JSON.stringify(value).replace(at, `${at}"__proto__":{"injected":1},`)) as unknown;

describe('input rows confirmed by hand (readDatasetRow)', () => {
  it('read exactly as the DatasetRow schema reads them, key order included, for every one-field change of a row', () => {
    let checked = 0;
    let byHand = 0;
    for (const base of ROWS) {
      for (const variant of parsedVariants(base)) {
        const expected = DatasetRow.safeParse(variant);
        const actual = readDatasetRow(variant);
        assert.equal('data' in actual, expected.success, JSON.stringify(variant));
        if ('data' in actual) assert.equal(JSON.stringify(actual.data), JSON.stringify(expected.data), JSON.stringify(variant));
        // The schema copies the input list it checks; the hand check hands back the row's own.
        const input = (variant as { responses_create_params?: { input?: unknown } } | null)?.responses_create_params?.input;
        if ('data' in actual && Array.isArray(input) && actual.data.responses_create_params?.input === input) byHand += 1;
        checked += 1;
      }
    }
    assert.ok(checked > 500, `${checked} variants`);
    assert.ok(byHand > checked / 4, `${byHand} of ${checked} confirmed by hand`);
  });

  it('leaves rows with a `__proto__` key to the schema, which drops the key instead of planting fields', () => {
    for (const at of ['{', '"responses_create_params":{', '"agent_ref":{', '"content":']) {
      const value = withProto(ROWS[0], at === '"content":' ? '{"role":"user",' : at);
      const actual = readDatasetRow(value);
      const expected = DatasetRow.safeParse(value);
      assert.ok('data' in actual && expected.success);
      assert.equal(JSON.stringify(actual.data), JSON.stringify(expected.data));
      assert.equal((actual.data as { injected?: unknown }).injected, undefined);
    }
  });

  it('words the problems of a row the hand check refuses as the schema does, naming the field', () => {
    const actual = readDatasetRow({ responses_create_params: { input: 3 }, _ng_task_index: -1 });
    assert.ok('issues' in actual);
    assert.deepEqual(
      actual.issues.map((issue) => issue.field),
      ['responses_create_params.input', '_ng_task_index'],
    );
  });
});

describe('requests confirmed by hand (plainRequest)', () => {
  it('are only requests RequestFields reads as they are, for every one-field change of a request', () => {
    let checked = 0;
    let byHand = 0;
    for (const base of REQUESTS) {
      for (const variant of parsedVariants(base)) {
        const plain = plainRequest(variant);
        checked += 1;
        if (plain === undefined) continue;
        byHand += 1;
        const expected = RequestFields.safeParse(variant);
        assert.ok(expected.success, JSON.stringify(variant));
        assert.deepEqual(plain, expected.data, JSON.stringify(variant));
      }
    }
    assert.ok(checked > 300, `${checked} variants`);
    assert.ok(byHand > checked / 4, `${byHand} of ${checked} confirmed by hand`);
  });

  it('make tasks that EpisodeTask returns unchanged, so rowToTask need not parse them again', () => {
    let tasks = 0;
    for (const base of REQUESTS) {
      for (const variant of parsedVariants(base)) {
        if (plainRequest(variant) === undefined) continue;
        const row = {
          responses_create_params: variant,
          agent_ref: { name: 'arithmetic' },
          _ng_task_index: 3,
          _ng_rollout_index: 0,
          problem: '1+2',
        } as MaterializedRow;
        const task = rowToTask(row);
        if (Array.isArray(task)) {
          assert.deepEqual(
            task.map((issue) => issue.field),
            ['responses_create_params.input'],
            JSON.stringify(variant),
          );
          continue;
        }
        assert.equal(JSON.stringify(task), JSON.stringify(EpisodeTask.parse(task)), JSON.stringify(variant));
        tasks += 1;
      }
    }
    assert.ok(tasks > 200, `${tasks} tasks`);
  });

  it('leave seeds beyond the safe whole numbers, content parts, function calls and `__proto__` keys to the schemas', () => {
    const [request] = REQUESTS;
    for (const variant of [
      { ...request, metadata: { extra_body: '{"seed":1e20}' } },
      { input: [{ role: 'user', content: [{ type: 'input_text', text: 'p' }] }] },
      { input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }] },
      withProto(request, '{'),
      withProto(request, '{"role":"user",'),
      { tools: [withProto({ type: 'function', name: 'f', parameters: { type: 'object' } }, '"parameters":{')] },
    ]) {
      assert.equal(plainRequest(variant), undefined, JSON.stringify(variant));
    }
  });
});
