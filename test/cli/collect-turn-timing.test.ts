import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TurnRecord } from '../../src/core/index.js';
import type { InferenceServer } from '../../src/testing/index.js';
import { runArithmetic } from '../support/embedded-arithmetic.js';
import { startTwoReplicas, twoReplicaCollect } from '../support/two-replica-collect.js';

const dir = mkdtempSync(join(tmpdir(), 'gymnast-turn-timing-'));
const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { started_at?: number; duration_ms: number; turns: TurnRecord[] });

/** Rounding each timing to the microsecond may put a sum a few thousandths of a ms off. */
const ROUNDING_MS = 0.005;

/** Each turn was asked for after the one before it was generated and stepped, and none before the rollout began. */
function assertTurnsInOrder(turns: readonly TurnRecord[], where: string): void {
  for (const [i, turn] of turns.entries()) {
    assert.equal(typeof turn.timing.start_ms, 'number', `${where} turn ${i}: start_ms`);
    const previous = turns[i - 1];
    if (previous === undefined) continue;
    const ready = previous.timing.start_ms! + previous.timing.generation_ms + previous.timing.env_ms;
    assert.ok(turn.timing.start_ms! > previous.timing.start_ms!, `${where} turn ${i} starts after turn ${i - 1}`);
    assert.ok(turn.timing.start_ms! >= ready - ROUNDING_MS, `${where} turn ${i} starts at ${turn.timing.start_ms}, turn ${i - 1} was done at ${ready}`);
  }
}

describe('rows record when each rollout and turn started, and which replica served each turn', () => {
  let servers: InferenceServer[] = [];
  before(async () => {
    servers = await startTwoReplicas();
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('a collect against two replicas: `server` is the replica of every turn, `start_ms` orders the turns, `started_at` the rollouts', async () => {
    const output = join(dir, 'fleet', 'rollouts.jsonl');
    const before = Date.now();
    const run = await twoReplicaCollect(servers, output);
    const afterRun = Date.now();
    assert.equal(run.code, 0, run.stderr);
    const written = rows(output);
    assert.equal(written.length, 12);
    const urls = new Set(servers.map((server) => server.url));
    const used = new Set<string>();
    for (const [i, row] of written.entries()) {
      assert.ok(
        row.started_at !== undefined && row.started_at >= before - 1 && row.started_at + row.duration_ms <= afterRun + 1,
        `row ${i} started_at ${row.started_at}`,
      );
      assert.ok(row.turns.length >= 1);
      for (const turn of row.turns) {
        assert.ok(urls.has(turn.server!), `row ${i}: server ${turn.server} is one of the replicas`);
        used.add(turn.server!);
      }
      assertTurnsInOrder(row.turns, `row ${i}`);
      const last = row.turns.at(-1)!;
      assert.ok(last.timing.start_ms! + last.timing.generation_ms <= row.duration_ms + ROUNDING_MS, `row ${i}: its turns end within its duration`);
    }
    assert.ok(
      written.some((row) => row.turns.length > 1),
      'some rollouts took more than one turn',
    );
    assert.equal(used.size, 2, 'both replicas served turns');
  });

  it('the embedded model records no server, and the same timing', async () => {
    const records = await runArithmetic(['12+34', '56+7'], { seed: 3 }, 2);
    for (const [i, record] of records.entries()) {
      assert.ok(record.timing.started_at !== undefined && record.timing.started_at > 1.7e12, 'epoch ms');
      for (const turn of record.turns) assert.ok(!('server' in turn), `record ${i}: no server`);
      assertTurnsInOrder(record.turns, `record ${i}`);
    }
  });
});
