import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  MaterializedRow,
  readFullRow,
  readMaterializedRow,
  readRow,
  restoreRowTokens,
  ResultRow,
  ResultRowHead,
  ROW_SCHEMA_VERSION,
} from '../../src/core/index.js';
import { readOwnMaterializedRow } from '../../src/core/row-reader.js';
import { oneChangeVariants } from '../support/one-change-variants.js';

const rows = (name: string) =>
  readFileSync(new URL(`../fixtures/rows/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** Rows of the current version with every message's ids on it, as `readFullRow` hands them to the schema. */
const currentRows = () => rows('v3_rollouts.jsonl').map((row, i) => restoreRowTokens(row, `v3_rollouts.jsonl:${i + 1}`));

/** A row with every optional field the hand check confirms; `rare` adds a tool call and a drifted turn, which the schema reads. */
function richRow(rare: boolean): Record<string, unknown> {
  const row = structuredClone(currentRows()[0]!);
  const messages = row.messages as Record<string, unknown>[];
  messages.push({
    role: 'assistant',
    content: '',
    reasoning_content: 'hm',
    token_ids: [1, 2],
    generation_logprobs: [-0.5, -1],
    ...(rare ? { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] } : {}),
  });
  messages.push({ role: 'tool', content: '3', tool_call_id: 'c1', token_ids: [3] });
  const turns = row.turns as Record<string, unknown>[];
  turns.push({
    ...turns[0],
    index: turns.length,
    logprobs_mode: 'raw',
    policy_version: 2,
    server: 'http://127.0.0.1:8000',
    reward_components: { a: 1 },
    timing: { start_ms: 12.5, generation_ms: 3, env_ms: 0.25 },
    drift_unchecked: true,
    ...(rare ? { token_drift: { source: 'template', at: 3, ledger: 'a', template: 'b' } } : {}),
  });
  return {
    ...row,
    sampling: { temperature: 0.7, top_p: 0.9, top_k: 20, max_tokens: 64, seed: -3, greedy: false },
    reward_components: { a: 0.5 },
    termination: { kind: 'max-tokens', detail: 'd' },
    env_metadata: { x: 1 },
    drift_unchecked: 1,
    started_at: 1_795_000_000_000,
    extra: 4,
    _ng_attempt_index: 1,
  };
}

const REPLACEMENTS: unknown[] = [undefined, null, -1, 0, 1.5, -0.5, 2 ** 53, 'x', '', true, {}, [], [1.5], ['x'], { zz: 1 }];

/** The schema's own reading (no hand check), or its error. */
function bySchema(schema: typeof ResultRow | typeof ResultRowHead | typeof MaterializedRow, value: unknown): unknown {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : 'invalid';
}

function byReader(read: typeof readFullRow | typeof readRow | typeof readOwnMaterializedRow, value: unknown): unknown {
  try {
    return read === readOwnMaterializedRow ? read(value, 'x:1') : (read as typeof readRow)(value, 'x:1').row;
  } catch {
    return 'invalid';
  }
}

describe('successful rows confirmed by hand', () => {
  it('read exactly as the schema reads them, top-level key order included, for every one-field change of a row', () => {
    let checked = 0;
    let byHand = 0;
    for (const base of [...currentRows(), richRow(false), richRow(true)]) {
      for (const variant of oneChangeVariants(base, { replacements: REPLACEMENTS, maxDepth: 5 })) {
        if (
          typeof variant !== 'object' ||
          variant === null ||
          Array.isArray(variant) ||
          (variant as { schema_version?: unknown }).schema_version !== ROW_SCHEMA_VERSION
        )
          continue;
        for (const [schema, read] of [
          [ResultRow, readFullRow],
          [ResultRowHead, readRow],
        ] as const) {
          const expected = bySchema(schema, variant);
          const actual = byReader(read, variant);
          assert.deepEqual(actual, expected, JSON.stringify(variant));
          if (expected !== 'invalid') assert.deepEqual(Object.keys(actual as object), Object.keys(expected as object));
          // The schema copies the arrays it checks; the hand check hands back the row's own.
          const turns = (variant as { turns?: unknown }).turns;
          if (turns !== undefined && (actual as { turns?: unknown }).turns === turns) byHand += 1;
        }
        checked += 1;
      }
    }
    assert.ok(checked > 1000, `${checked} variants`);
    assert.ok(byHand > checked / 4, `${byHand} of ${checked * 2} readings confirmed by hand`);
  });

  it("planned rows too, as admission confirms them (the fields the schema returns; their order the row's own)", () => {
    let checked = 0;
    for (const base of rows('v3_rollouts_materialized_inputs.jsonl')) {
      for (const variant of oneChangeVariants({ ...base, zz: [1] }, { replacements: REPLACEMENTS, maxDepth: 5 })) {
        const expected = bySchema(MaterializedRow, variant);
        const actual = byReader(readOwnMaterializedRow, variant);
        assert.deepEqual(actual, expected, JSON.stringify(variant));
        if (expected !== 'invalid') assert.deepEqual(Object.keys(actual as object).sort(), Object.keys(expected as object).sort());
        checked += 1;
      }
    }
    assert.ok(checked > 100, `${checked} variants`);
  });

  it('never lets a `__proto__` key plant fields on the row it returns (JSON.parse makes it an own key; the schema drops it)', () => {
    const [base] = rows('v3_rollouts.jsonl');
    const line = JSON.stringify(base).replace(/^\{/, '{"__proto__":{"injected":1},');
    for (const read of [readRow, readFullRow] as const) {
      const { row } = read(JSON.parse(line), 'x:1');
      assert.equal((row as { injected?: unknown }).injected, undefined);
      assert.equal(Object.getPrototypeOf(row), Object.prototype);
      const expected = read === readRow ? bySchema(ResultRowHead, JSON.parse(line)) : bySchema(ResultRow, restoreRowTokens(JSON.parse(line), 'x:1'));
      assert.deepEqual(row, expected);
    }
    const [planned] = rows('v3_rollouts_materialized_inputs.jsonl');
    const plannedLine = JSON.stringify(planned).replace(/^\{/, '{"__proto__":{"injected":1},');
    assert.equal((readMaterializedRow(JSON.parse(plannedLine), 'x:1') as { injected?: unknown }).injected, undefined);
  });
});
