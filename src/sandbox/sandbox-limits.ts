import { z } from 'zod';

const MIB = 1024 * 1024;

/**
 * The caps on one sandboxed run, each with a default safe for running a model's program on a shared
 * machine. The kernel enforces all but two (`wallMs` and `outputBytes`, which gymnast watches and
 * enforces by killing the sandbox).
 */
export const SandboxLimits = z
  .object({
    /** CPU seconds of each process (RLIMIT_CPU): SIGKILL at this many. */
    cpuSeconds: z.number().int().min(1).max(3600).default(10),
    /** Wall-clock milliseconds from start to the sandbox killed: bounds sleeping and blocked programs. */
    wallMs: z.number().int().min(100).max(3_600_000).default(15_000),
    /**
     * Address space in bytes (RLIMIT_AS). Node's V8 reserves about 700 MiB of address space before it
     * runs a line, so a Node program's cap is at least 1 GiB whatever this says; Python starts in far less.
     */
    memoryBytes: z
      .number()
      .int()
      .min(64 * MIB)
      .default(512 * MIB),
    /**
     * Processes and threads the program may have at once (RLIMIT_NPROC, counted per sandbox). With no
     * cgroup, address space is capped per process: a run's memory is bounded by processes × memoryBytes
     * (8 GiB by default), so raise one only with the other in mind. Node starts 7 threads.
     */
    processes: z.number().int().min(1).max(4096).default(16),
    /** The largest file the program may write, in bytes (RLIMIT_FSIZE). */
    fileBytes: z
      .number()
      .int()
      .min(0)
      .default(16 * MIB),
    /** Open file descriptors (RLIMIT_NOFILE). */
    openFiles: z.number().int().min(8).max(65_536).default(256),
    /** Bytes kept of stdout and of stderr each; more of either stops the run (`output-limit`). */
    outputBytes: z
      .number()
      .int()
      .min(1)
      .max(64 * MIB)
      .default(1 * MIB),
    /** The size of the work folder's tmpfs (`/work`, `/tmp` links to it), in bytes. */
    workBytes: z
      .number()
      .int()
      .min(MIB)
      .default(64 * MIB),
  })
  .strict();

export type SandboxLimits = z.infer<typeof SandboxLimits>;
/** Limits as callers give them: any subset, the rest defaulted. */
export type SandboxLimitsInput = z.input<typeof SandboxLimits>;
