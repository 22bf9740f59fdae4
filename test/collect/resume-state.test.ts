import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compactKey, loadResumeState, repairJsonl, ResumeState, wouldRetry } from '../../src/collect/resume-state.js';
import type { RowKeys } from '../../src/core/result-row.js';

const folder = () => mkdtempSync(join(tmpdir(), 'gymnast-resume-state-'));
const row = (task: number, rollout: number, fields: Partial<RowKeys> & Record<string, unknown> = {}): RowKeys => ({
  _ng_task_index: task,
  _ng_rollout_index: rollout,
  ...fields,
});

function visited(path: string): { rows: unknown[]; lines: number[]; repairedBytes: number } {
  const rows: unknown[] = [];
  const lines: number[] = [];
  const { repairedBytes } = repairJsonl(path, (value, line) => {
    rows.push(value);
    lines.push(line);
  });
  return { rows, lines, repairedBytes };
}

describe('resume: the key of a rollout', () => {
  it('is one distinct key per (task, rollout), numbers and strings never colliding', () => {
    const keys = new Set<number | string>();
    for (const task of [0, 1, 2, 2 ** 31 - 1, 2 ** 31, 2 ** 40]) {
      for (const rollout of [0, 1, 2 ** 21 - 1, 2 ** 21, 2 ** 30]) keys.add(compactKey(row(task, rollout)));
    }
    assert.equal(keys.size, 30);
  });

  it('is a number inside the ranges that fit one exactly, and the readable string past them', () => {
    assert.equal(compactKey(row(3, 5)), 3 * 2 ** 21 + 5);
    assert.equal(compactKey(row(2 ** 31 - 1, 2 ** 21 - 1)), (2 ** 31 - 1) * 2 ** 21 + 2 ** 21 - 1);
    assert.equal(compactKey(row(2 ** 31, 0)), `${2 ** 31}:0`);
    assert.equal(compactKey(row(0, 2 ** 21)), `0:${2 ** 21}`);
  });
});

describe('resume: reading a result file a crash may have cut', () => {
  it('reads nothing and repairs nothing when the file does not exist', () => {
    assert.deepEqual(visited(join(folder(), 'absent.jsonl')), { rows: [], lines: [], repairedBytes: 0 });
  });

  it('visits every complete row with its line number, skipping blank lines, and leaves a whole file as it was', () => {
    const path = join(folder(), 'rows.jsonl');
    const text = '{"a":1}\n\n  \n{"a":2}\n';
    writeFileSync(path, text);
    assert.deepEqual(visited(path), { rows: [{ a: 1 }, { a: 2 }], lines: [1, 4], repairedBytes: 0 });
    assert.equal(readFileSync(path, 'utf8'), text);
  });

  it('cuts a last line without its newline, even one that parses, and reports the bytes cut', () => {
    const path = join(folder(), 'rows.jsonl');
    writeFileSync(path, '{"a":1}\n{"a":2}');
    assert.deepEqual(visited(path), { rows: [{ a: 1 }], lines: [1], repairedBytes: 7 });
    assert.equal(readFileSync(path, 'utf8'), '{"a":1}\n');
  });

  it('cuts a last line that does not parse, with the blank lines after it', () => {
    const path = join(folder(), 'rows.jsonl');
    writeFileSync(path, '{"a":1}\n{"a":\n\n');
    assert.deepEqual(visited(path), { rows: [{ a: 1 }], lines: [1], repairedBytes: 7 });
    assert.equal(readFileSync(path, 'utf8'), '{"a":1}\n');
  });

  it('refuses a bad line with complete rows after it as corruption, naming file and line, and cuts nothing', () => {
    const path = join(folder(), 'rows.jsonl');
    const text = '{"a":1}\nnot json\n{"a":3}\n';
    writeFileSync(path, text);
    assert.throws(
      () => visited(path),
      (error: Error) => error.message.startsWith(`${path}:2 is not valid JSON, but complete rows follow it`),
    );
    assert.equal(readFileSync(path, 'utf8'), text);
  });

  it('reads rows that cross the 1 MiB read boundary whole, in order', () => {
    const path = join(folder(), 'big.jsonl');
    const rows = Array.from({ length: 5 }, (_, i) => ({ i, pad: 'x'.repeat(300_000 + i) }));
    writeFileSync(path, `${rows.map((value) => JSON.stringify(value)).join('\n')}\n{"cut":`);
    const read = visited(path);
    assert.deepEqual(read.rows, rows);
    assert.deepEqual(read.lines, [1, 2, 3, 4, 5]);
    assert.equal(read.repairedBytes, '{"cut":'.length);
  });

  it('reports each repaired file once, through the notice', () => {
    const dir = folder();
    const files = { output: join(dir, 'out.jsonl'), failures: join(dir, 'out_failures.jsonl') };
    writeFileSync(files.output, `${JSON.stringify(row(0, 0, { reward: 1 }))}\n{"_ng_task`);
    writeFileSync(files.failures, `${JSON.stringify(row(1, 0, { _ng_failure_class: 'transport' }))}\n`);
    const notices: string[] = [];
    const state = loadResumeState(files, (message) => notices.push(message));
    assert.deepEqual(notices, [`repaired ${files.output}: removed a last line cut by a crash (10 bytes)`]);
    assert.equal(state.done, 1);
    assert.deepEqual(state.decide(row(1, 0), 3), { kind: 'run', attempt: 1 });
  });

  it('repairs a cut file quietly when no one listens for notices', () => {
    const dir = folder();
    const files = { output: join(dir, 'out.jsonl'), failures: join(dir, 'out_failures.jsonl') };
    writeFileSync(files.output, `${JSON.stringify(row(0, 0, { reward: 1 }))}\n{"_ng_task`);
    assert.equal(loadResumeState(files).done, 1);
    assert.equal(readFileSync(files.output, 'utf8').endsWith('}\n'), true);
  });

  it('names the file and line of a row whose keys are wrong', () => {
    const dir = folder();
    const files = { output: join(dir, 'out.jsonl'), failures: join(dir, 'out_failures.jsonl') };
    writeFileSync(files.output, '{"_ng_task_index":-1,"_ng_rollout_index":0}\n');
    assert.throws(() => loadResumeState(files), new RegExp(`${files.output.replaceAll('/', '\\/')}:1`));
  });
});

describe('resume: what earlier attempts decide', () => {
  it('skips a key that succeeded, summing its reward once however often it was written', () => {
    const state = new ResumeState();
    state.addSuccess(row(0, 0, { reward: 0.5 }));
    state.addSuccess(row(0, 0, { reward: 0.5 }));
    state.addSuccess(row(0, 1, { reward: 0.25 }));
    assert.equal(state.done, 2);
    assert.equal(state.rewardSum, 0.75);
    assert.deepEqual(state.decide(row(0, 0), 1), { kind: 'done' });
  });

  it('counts a success whose prompt never reached the model apart, and never in the reward', () => {
    const state = new ResumeState();
    state.addSuccess(row(0, 0, { reward: 0, num_turns: 0 }));
    state.addSuccess(row(1, 0, { reward: 1, turns: [] }));
    state.addSuccess(row(2, 0, { reward: 1, num_turns: 2 }));
    assert.equal(state.promptTooLong, 2);
    assert.equal(state.rewardSum, 1);
    assert.equal(state.done, 3);
  });

  it('runs a failed key again as the next attempt, until maxAttempts failures are used up', () => {
    const state = new ResumeState();
    assert.deepEqual(state.decide(row(0, 0), 3), { kind: 'run', attempt: 0 });
    state.addFailure(row(0, 0, { _ng_failure_class: 'transport' }));
    state.addFailure(row(0, 0, { _ng_failure_class: 'policy-error' }));
    assert.deepEqual(state.decide(row(0, 0), 3), { kind: 'run', attempt: 2 });
    assert.deepEqual(state.decide(row(0, 0), 2), { kind: 'given-up' });
    assert.equal(state.givenUp(3), 0);
    assert.equal(state.givenUp(2), 1);
  });

  it('never counts an interrupted (aborted) attempt', () => {
    const state = new ResumeState();
    state.addFailure(row(0, 0, { _ng_failure_class: 'aborted' }));
    state.addFailure(row(0, 0, { _ng_failure_class: 'aborted', _ng_failure_terminal: true }));
    assert.deepEqual(state.decide(row(0, 0), 1), { kind: 'run', attempt: 0 });
    assert.equal(state.givenUp(1), 0);
  });

  it('gives up on a terminal failure at once, whatever attempts are left', () => {
    const state = new ResumeState();
    state.addFailure(row(0, 0, { _ng_failure_class: 'token-alignment', _ng_failure_terminal: true }));
    state.addFailure(row(0, 1, { _ng_failure_class: 'transport', _ng_failure_terminal: false }));
    assert.deepEqual(state.decide(row(0, 0), 10), { kind: 'given-up' });
    assert.deepEqual(state.decide(row(0, 1), 10), { kind: 'run', attempt: 1 });
    assert.equal(state.givenUp(10), 1);
  });

  it('does not count a key that failed before it succeeded as given up', () => {
    const state = new ResumeState();
    state.addFailure(row(0, 0, { _ng_failure_class: 'transport', _ng_failure_terminal: true }));
    state.addSuccess(row(0, 0, { reward: 1 }));
    assert.equal(state.givenUp(1), 0);
    assert.deepEqual(state.decide(row(0, 0), 1), { kind: 'done' });
  });
});

describe('resume: whether a failure just written will be retried', () => {
  it('is yes while attempts are left, counting this one', () => {
    assert.equal(wouldRetry(row(0, 0, { _ng_failure_class: 'transport' }), 2), true);
    assert.equal(wouldRetry(row(0, 0, { _ng_failure_class: 'transport', _ng_attempt_index: 1 }), 2), false);
    assert.equal(wouldRetry(row(0, 0, { _ng_failure_class: 'transport', _ng_attempt_index: 1 }), 3), true);
  });

  it('is no for a terminal failure, and an interrupted attempt uses up none', () => {
    assert.equal(wouldRetry(row(0, 0, { _ng_failure_class: 'transport', _ng_failure_terminal: true }), 5), false);
    assert.equal(wouldRetry(row(0, 0, { _ng_failure_class: 'aborted', _ng_attempt_index: 1 }), 2), true);
    assert.equal(wouldRetry(row(0, 0, { _ng_failure_class: 'aborted' }), 1), true);
  });
});
