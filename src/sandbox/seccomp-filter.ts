/**
 * The system calls a sandboxed program is refused (EPERM), by architecture, as a seccomp BPF program
 * for bubblewrap's `--seccomp`. Namespaces do not cover these: the kernel keyrings (the session
 * keyring gymnast runs in is inherited, and readable by whoever possesses it), other processes'
 * memory, and the kernel interfaces that fuzzers and exploits start from. Interpreters need none of them.
 */
const REFUSED = ['add_key', 'request_key', 'keyctl', 'ptrace', 'process_vm_readv', 'process_vm_writev', 'bpf', 'perf_event_open', 'userfaultfd'] as const;

interface Architecture {
  /** AUDIT_ARCH_* of the native system calls. */
  readonly audit: number;
  readonly numbers: Record<(typeof REFUSED)[number], number>;
  /** x86_64's x32 calls share its audit arch and set this bit in the number: refused whole. */
  readonly x32Bit?: number;
}

const ARCHITECTURES: Partial<Record<NodeJS.Architecture, Architecture>> = {
  x64: {
    audit: 0xc000003e,
    numbers: {
      add_key: 248,
      request_key: 249,
      keyctl: 250,
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
    },
    x32Bit: 0x40000000,
  },
  arm64: {
    audit: 0xc00000b7,
    numbers: {
      add_key: 217,
      request_key: 218,
      keyctl: 219,
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
    },
  },
};

// Classic BPF opcodes and seccomp's return values (linux/filter.h, linux/seccomp.h).
const LOAD_WORD = 0x20;
const JUMP_EQUAL = 0x15;
const JUMP_AT_LEAST = 0x35;
const RETURN = 0x06;
const ALLOW = 0x7fff0000;
const REFUSE = 0x00050000 | 1; // SECCOMP_RET_ERRNO | EPERM
const NUMBER_OFFSET = 0;
const ARCH_OFFSET = 4;

/**
 * The filter for `arch` (default: this process's), or undefined where gymnast has no system-call
 * table: the sandbox then runs without one. Calls of any other architecture (i386's `int 0x80` on
 * x86_64) are refused whole, as their numbers differ.
 */
export function seccompFilter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const table = ARCHITECTURES[arch];
  if (table === undefined) return undefined;
  const refused = REFUSED.map((name) => table.numbers[name]);
  const checks = table.x32Bit === undefined ? refused.length : refused.length + 1;
  // Layout: load arch, refuse other arches, load number, [refuse x32], refuse each listed, allow, refuse.
  const program: [number, number, number, number][] = [
    [LOAD_WORD, 0, 0, ARCH_OFFSET],
    [JUMP_EQUAL, 1, 0, table.audit],
    [RETURN, 0, 0, REFUSE],
    [LOAD_WORD, 0, 0, NUMBER_OFFSET],
  ];
  const refuseAt = program.length + checks + 1;
  if (table.x32Bit !== undefined) program.push([JUMP_AT_LEAST, refuseAt - program.length - 1, 0, table.x32Bit]);
  for (const number of refused) program.push([JUMP_EQUAL, refuseAt - program.length - 1, 0, number]);
  program.push([RETURN, 0, 0, ALLOW], [RETURN, 0, 0, REFUSE]);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jumpTrue, jumpFalse, k], index) => {
    bytes.writeUInt16LE(code, index * 8);
    bytes.writeUInt8(jumpTrue, index * 8 + 2);
    bytes.writeUInt8(jumpFalse, index * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, index * 8 + 4);
  });
  return bytes;
}
