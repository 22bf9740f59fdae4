import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { reverifyRun } from '../../src/collect/reverify-run.js';
import { resourcesVerifier, type RowVerifier } from '../../src/collect/row-verifier.js';
import { collectArithmetic, lines } from '../support/health-run.js';

describe('reverifyRun', () => {
  it("re-scores at most `concurrency` rows at once, and writes them in the run's order", async () => {
    const run = await collectArithmetic();
    let inFlight = 0;
    let mostInFlight = 0;
    const verifier: RowVerifier = {
      name: 'counting',
      async verify(row) {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        // Later rows finish first: the output must still follow the run.
        await new Promise((resolve) => setTimeout(resolve, 40 - (row._ng_task_index % 4) * 10));
        inFlight -= 1;
        return { reward: row.reward };
      },
      close: async () => {},
    };
    const output = run.replace(/\.jsonl$/, '-counted.jsonl');
    const summary = await reverifyRun({ run, output, verifier, concurrency: 3 });
    assert.deepEqual([summary.unchanged, summary.failed, mostInFlight], [32, 0, 3]);
    const keys = (path: string) =>
      lines(path)
        .map((text) => JSON.parse(text) as { _ng_task_index: number; _ng_rollout_index: number })
        .map((row) => `${row._ng_task_index}:${row._ng_rollout_index}`);
    assert.deepEqual(keys(output), keys(run));
  });
});

describe('reverifyRun against a verifier that never answers', () => {
  let run: string;
  let silent: Server;
  let url: string;
  let posts = 0;
  before(async () => {
    run = await collectArithmetic();
    // Takes every /verify and never answers: only the deadlines end the calls.
    silent = createServer((request) => {
      posts += 1;
      request.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  after(() => {
    silent.closeAllConnections();
    silent.close();
  });

  it('fails each row at its deadline, typed in the sidecar, and goes on with the next', async () => {
    const output = run.replace(/\.jsonl$/, '-silent.jsonl');
    const started = Date.now();
    const summary = await reverifyRun({
      run,
      output,
      verifier: resourcesVerifier({ name: 'arithmetic', url, timeoutMs: 5_000 }),
      concurrency: 4,
      timeoutMs: 300,
    });
    assert.deepEqual([summary.rows, summary.failed, summary.unchanged], [32, 32, 0]);
    assert.ok(Date.now() - started < 20_000, `${Date.now() - started} ms`);
    assert.ok(posts >= 32);
    assert.equal(lines(output).length, 0);
    const failures = lines(output.replace(/\.jsonl$/, '_reverify_failures.jsonl')).map(
      (text) => JSON.parse(text) as { _ng_task_index: number; error: { kind: string } },
    );
    assert.equal(failures.length, 32);
    assert.ok(failures.every((failure) => typeof failure._ng_task_index === 'number' && failure.error.kind.length > 0));
  });
});
