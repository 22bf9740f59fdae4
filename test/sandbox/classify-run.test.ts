import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyRun } from '../../src/sandbox/classify-run.js';

const end = { exitCode: 0, signal: null, stderr: '', language: 'python' as const };

describe('classifyRun: the verdict from how a run ended', () => {
  it('unfolds the 128 + N bubblewrap reports for a program killed by signal N', () => {
    assert.deepEqual(classifyRun({ ...end, exitCode: 128 + 24 }), { status: 'timeout', limit: 'cpu', exitCode: null, signal: 'SIGXCPU' });
    assert.deepEqual(
      classifyRun({ ...end, exitCode: 128 + 9 }),
      { status: 'timeout', limit: 'cpu', exitCode: null, signal: 'SIGKILL' },
      "the CPU cap's: nothing inside can SIGKILL the namespace's init",
    );
    assert.deepEqual(classifyRun({ ...end, exitCode: 128 + 11 }), { status: 'killed', exitCode: null, signal: 'SIGSEGV' });
    assert.deepEqual(classifyRun({ ...end, exitCode: 128 + 6, language: 'node' }), { status: 'killed', exitCode: null, signal: 'SIGABRT' });
  });

  it("puts the limit gymnast stopped the run at before what the program's end says", () => {
    assert.equal(classifyRun({ ...end, exitCode: null, signal: 'SIGKILL', stoppedBy: 'wall' }).status, 'timeout');
    assert.equal(classifyRun({ ...end, exitCode: null, signal: 'SIGKILL', stoppedBy: 'output', stderr: 'MemoryError\n' }).status, 'output-limit');
  });

  it("reads memory from the runtime's own words, only on a failed exit", () => {
    assert.equal(classifyRun({ ...end, exitCode: 1, stderr: 'Traceback (most recent call last):\n  File "x"\nMemoryError\n' }).status, 'memory');
    assert.equal(classifyRun({ ...end, exitCode: 1, stderr: 'MemoryError is what I print\nValueError: no\n' }).status, 'runtime-error');
    assert.equal(classifyRun({ ...end, exitCode: 0, stderr: 'MemoryError\n' }).status, 'ok');
    // A forked process's traceback cut short when the program's first process ended (it took the others with it).
    const cut = 'Traceback (most recent call last):\n  File "x"\nMemoryError\nTraceback (most recent call last):\n  File "x", line 7\n    chunks.app';
    assert.equal(classifyRun({ ...end, exitCode: 1, stderr: cut }).status, 'memory');
    assert.equal(
      classifyRun({ ...end, exitCode: 1, stderr: 'Traceback:\nMemoryError\nTraceback:\nValueError: later\nTraceback (most recent call last):\n' }).status,
      'runtime-error',
    );
    assert.equal(classifyRun({ ...end, exitCode: 1, stderr: 'Traceback (most recent call last):\n' }).status, 'runtime-error');
    assert.equal(
      classifyRun({ ...end, exitCode: 134, language: 'node', stderr: 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory' })
        .status,
      'memory',
    );
  });

  it('calls any other non-zero exit a runtime error, with its code', () => {
    assert.deepEqual(classifyRun({ ...end, exitCode: 3 }), { status: 'runtime-error', exitCode: 3, signal: null });
    assert.deepEqual(classifyRun(end), { status: 'ok', exitCode: 0, signal: null });
  });
});
