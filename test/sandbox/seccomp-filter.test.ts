import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seccompFilter } from '../../src/sandbox/seccomp-filter.js';

/** The filter's instructions as [code, jump if true, jump if false, k]. */
function instructions(filter: Buffer): number[][] {
  return Array.from({ length: filter.length / 8 }, (_, index) => [
    filter.readUInt16LE(index * 8),
    filter.readUInt8(index * 8 + 2),
    filter.readUInt8(index * 8 + 3),
    filter.readUInt32LE(index * 8 + 4),
  ]);
}

describe('seccompFilter', () => {
  it('refuses every listed call of x86_64 and arm64 with EPERM, x32 calls and other arches whole, and allows the rest', () => {
    for (const [arch, audit, keyctl] of [
      ['x64', 0xc000003e, 250],
      ['arm64', 0xc00000b7, 219],
    ] as const) {
      const program = instructions(seccompFilter(arch)!);
      assert.deepEqual(program[1]!.slice(0, 3), [0x15, 1, 0]);
      assert.equal(program[1]![3], audit);
      assert.deepEqual(program.at(-2), [0x06, 0, 0, 0x7fff0000], 'allow');
      assert.deepEqual(program.at(-1), [0x06, 0, 0, 0x00050001], 'refuse with EPERM');
      // Every conditional jump lands on the refusal.
      program.forEach(([code, jumpTrue], index) => {
        if (index > 1 && (code === 0x15 || code === 0x35)) assert.equal(index + 1 + jumpTrue!, program.length - 1, `${arch} instruction ${index}`);
      });
      assert.ok(program.some(([code, , , k]) => code === 0x15 && k === keyctl));
    }
    assert.ok(instructions(seccompFilter('x64')!).some(([code, , , k]) => code === 0x35 && k === 0x40000000));
  });

  it('has no filter where it has no system-call table', () => {
    assert.equal(seccompFilter('ia32'), undefined);
  });
});
