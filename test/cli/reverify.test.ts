import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ReverifySummary } from '../../src/collect/reverify-run.js';
import type { JsonServer } from '../../src/servers/http-server/json-server.js';
import { resourcesServerFor } from '../../src/servers/resources/resources-server-for.js';
import { collectArithmetic, corruptedCopy, lines, type EditableRow } from '../support/health-run.js';
import { gymnast } from '../support/run-cli.js';

type ReverifiedRow = EditableRow & { previous_reward: number; answer: number; problem: string };

const rowsOf = (path: string) => lines(path).map((text) => JSON.parse(text) as ReverifiedRow);
const summaryOf = (output: string) => JSON.parse(readFileSync(output.replace(/\.jsonl$/, '_reverify.json'), 'utf8')) as ReverifySummary;
const failuresOf = (output: string) => lines(output.replace(/\.jsonl$/, '_reverify_failures.jsonl')).map((text) => JSON.parse(text) as Record<string, unknown>);
const outputIn = (name: string) => join(mkdtempSync(join(tmpdir(), 'gymnast-reverify-')), name);

/** The run with task 0's answer key moved by one (a verifier fixed, as a row field says), and a line that is no row at all. */
function changedKey(run: string): string {
  return corruptedCopy(run, (rows) => [
    ...rows.map((text) => {
      const row = JSON.parse(text) as ReverifiedRow;
      if (row._ng_task_index === 0) row.answer += 1;
      return JSON.stringify(row);
    }),
    JSON.stringify({ not: 'a rollout' }),
  ]);
}

describe('gymnast reverify', () => {
  let run: string;
  let served: JsonServer;
  let url: string;
  before(async () => {
    run = await collectArithmetic();
    served = resourcesServerFor('arithmetic', { port: 0 })!;
    url = await served.start();
  });
  after(() => served.close());

  it('re-scores a run with its built-in environment, no model called: the same rewards, the old one beside each', async () => {
    const output = outputIn('same.jsonl');
    const result = await gymnast('reverify', run, '-o', output);
    assert.equal(result.code, 0, result.stderr);
    const rows = rowsOf(output);
    assert.equal(rows.length, 32);
    for (const row of rows) assert.deepEqual([row.reward, row.previous_reward], [1, 1], `task ${row._ng_task_index}`);
    const summary = summaryOf(output);
    assert.deepEqual([summary.rows, summary.rose, summary.fell, summary.unchanged, summary.failed], [32, 0, 0, 32, 0]);
    assert.match(result.stdout, /32 unchanged, 0 failed to re-score/);
  });

  it('a changed answer key changes the rewards and the summary counts them; a bad line is a typed failure, not a crash', async () => {
    const output = outputIn('changed.jsonl');
    const result = await gymnast('reverify', changedKey(run), '--env', 'arithmetic', '-o', output);
    assert.equal(result.code, 0, result.stderr);
    const rows = rowsOf(output);
    const fell = rows.filter((row) => row._ng_task_index === 0);
    assert.equal(fell.length, 2);
    for (const row of fell) assert.deepEqual([row.reward, row.previous_reward], [0, 1]);
    for (const row of rows.filter((other) => other._ng_task_index !== 0)) assert.equal(row.reward, 1);
    assert.deepEqual([summaryOf(output).fell, summaryOf(output).unchanged, summaryOf(output).failed], [2, 30, 1]);
    const [failure] = failuresOf(output);
    assert.deepEqual([failure!.line, (failure!.error as { kind: string }).kind], [33, 'invalid-row']);
    assert.match(result.stdout, /0 rose, 2 fell, 30 unchanged, 1 failed to re-score/);
    // `reward` is the new score, the one aggregate reads.
    const aggregate = await gymnast('aggregate', '-i', output);
    assert.equal(aggregate.code, 0, aggregate.stderr);
    assert.match(aggregate.stdout, /"mean\/reward": 0\.9375,/);
  });

  it("POSTs each row and its saved response to a resources server's /verify (gymnast serve resources, on loopback)", async () => {
    const output = outputIn('served.jsonl');
    const result = await gymnast('reverify', changedKey(run), '--resources-server', `arithmetic=${url}`, '-o', output);
    assert.equal(result.code, 0, result.stderr);
    const rows = rowsOf(output);
    assert.equal(rows.length, 32);
    // The served mapping verifies a single answer: the rows answered directly score as they did, but where the answer key moved.
    const direct = rows.filter((row) => row.messages.length === 3);
    assert.ok(direct.length >= 4, `${direct.length} direct answers`);
    for (const row of direct) assert.equal(row.reward, row._ng_task_index === 0 ? 0 : 1, `task ${row._ng_task_index}`);
    const summary = summaryOf(output);
    assert.equal(summary.rose + summary.fell + summary.unchanged, 32);
    assert.equal(summary.failed, 1);
  });

  it('reads rows of every schema version: 2 (ids on the messages) and 1 (no schema_version)', async () => {
    const older = corruptedCopy(run, (rows) =>
      rows.map((text, index) => {
        const row = JSON.parse(text) as Record<string, unknown>;
        if (index % 2 === 0) row.schema_version = 2;
        else delete row.schema_version;
        return JSON.stringify(row);
      }),
    );
    const output = outputIn('older.jsonl');
    const result = await gymnast('reverify', older, '--env', 'arithmetic', '-o', output);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual([summaryOf(output).unchanged, summaryOf(output).failed], [32, 0]);
  });

  it('refuses a missing run, an unknown environment and an output it cannot write in one line naming it', async () => {
    const missing = await gymnast('reverify', '/nonexistent/run.jsonl', '-o', outputIn('x.jsonl'));
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'gymnast: config: no run at /nonexistent/run.jsonl: give a rollout file written by gymnast collect\n');
    const unknown = await gymnast('reverify', run, '--env', 'maths', '-o', outputIn('x.jsonl'));
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^gymnast: config: no built-in environment "maths": try math, .*\n$/);
    const notAFolder = await gymnast('reverify', run, '-o', join(run, 'x.jsonl'));
    assert.equal(notAFolder.code, 1);
    assert.match(notAFolder.stderr, /^gymnast: [^\n]*out\.jsonl[^\n]*\n$/);
  });

  it("refuses to write over an earlier reverify's output unless --overwrite, and then replaces it", async () => {
    const output = outputIn('again.jsonl');
    assert.equal((await gymnast('reverify', run, '-o', output)).code, 0);
    const again = await gymnast('reverify', changedKey(run), '--env', 'arithmetic', '-o', output);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^gymnast: [^\n]*again\.jsonl[^\n]* an earlier reverify's output; pass --overwrite to replace it, or another -o\n$/);
    assert.equal(rowsOf(output).length, 32, 'the earlier rows are kept');
    assert.equal(summaryOf(output).fell, 0, 'the earlier summary is kept');
    const replaced = await gymnast('reverify', changedKey(run), '--env', 'arithmetic', '-o', output, '--overwrite');
    assert.equal(replaced.code, 0, replaced.stderr);
    assert.equal(summaryOf(output).fell, 2);
  });
});
