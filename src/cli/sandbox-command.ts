import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { ConfigError } from '../core/errors/config-error.js';
import { parseWithIssues } from '../core/schema-issues.js';
import { runSandboxed } from '../sandbox/run-sandboxed.js';
import { SandboxLimits, type SandboxLimitsInput } from '../sandbox/sandbox-limits.js';
import { SANDBOX_LANGUAGES, type SandboxLanguage } from '../sandbox/sandbox-runtime.js';
import type { SandboxVerdict } from '../sandbox/sandbox-verdict.js';

interface RunFlags {
  language: SandboxLanguage;
  stdin?: string;
  json?: boolean;
  unsandboxed?: boolean;
  cpuSeconds?: string;
  wallSeconds?: string;
  memoryMb?: string;
  processes?: string;
  fileMb?: string;
  openFiles?: string;
  outputKb?: string;
  workMb?: string;
}

const MIB = 1024 * 1024;

/** `gymnast sandbox run`: one program in the sandbox the code environments use, and its verdict. */
export function sandboxCommand(): Command {
  const run = new Command('run')
    .description(
      'run a program in the sandbox and print its verdict (ok, runtime-error, timeout, memory, output-limit, killed), exit code, output and duration',
    )
    .argument('<file>', 'the program')
    .addOption(new Option('--language <language>', 'the language of the program').choices(SANDBOX_LANGUAGES).makeOptionMandatory())
    .option('--stdin <file>', 'a file the program reads on stdin')
    .option('--cpu-seconds <n>', 'CPU seconds (default 10)')
    .option('--wall-seconds <n>', 'wall-clock seconds (default 15)')
    .option('--memory-mb <n>', 'address space in MiB, per process (default 512; at least 1024 for Node)')
    .option('--processes <n>', 'processes and threads at once (default 16)')
    .option('--file-mb <n>', 'largest file written, in MiB (default 16)')
    .option('--open-files <n>', 'open file descriptors (default 256)')
    .option('--output-kb <n>', 'KiB kept of stdout and of stderr each; more stops the run (default 1024)')
    .option('--work-mb <n>', 'size of the /work tmpfs in MiB (default 64)')
    .option('--json', 'print the verdict as JSON')
    .option('--unsandboxed', 'run WITHOUT isolation (no bubblewrap): only the limits apply; warns on every run')
    .action(async (file: string, flags: RunFlags) => {
      const limits = limitsOf(flags);
      const [code, stdin] = await Promise.all([readFile(file, 'utf8'), flags.stdin === undefined ? undefined : readFile(flags.stdin, 'utf8')]);
      // Ctrl-C needs no handler: bubblewrap runs with --die-with-parent, so the sandbox dies with gymnast.
      const verdict = await runSandboxed(
        { language: flags.language, code, limits, ...(stdin === undefined ? {} : { stdin }) },
        { unsandboxed: flags.unsandboxed === true, warn: (message) => process.stderr.write(`gymnast: warning: ${message}\n`) },
      );
      process.stdout.write(flags.json ? `${JSON.stringify(verdict, null, 2)}\n` : describeVerdict(verdict));
    });
  return new Command('sandbox').description('run model-written code in the sandbox the code environments use (bubblewrap + prlimit)').addCommand(run);
}

/** The limits the flags give, checked by the library's schema: a bad value is a `ConfigError` naming its flag. */
function limitsOf(flags: RunFlags): SandboxLimits {
  const given: SandboxLimitsInput = {
    ...scaled('cpuSeconds', flags.cpuSeconds, 1),
    ...scaled('wallMs', flags.wallSeconds, 1000),
    ...scaled('memoryBytes', flags.memoryMb, MIB),
    ...scaled('processes', flags.processes, 1),
    ...scaled('fileBytes', flags.fileMb, MIB),
    ...scaled('openFiles', flags.openFiles, 1),
    ...scaled('outputBytes', flags.outputKb, 1024),
    ...scaled('workBytes', flags.workMb, MIB),
  };
  const parsed = parseWithIssues(SandboxLimits, given);
  if ('issues' in parsed) throw new ConfigError(parsed.issues.map((issue) => `--${flagOf(issue.field)}: ${issue.message}`).join('; '));
  return parsed.data;
}

function scaled(key: keyof SandboxLimits, value: string | undefined, unit: number): SandboxLimitsInput {
  if (value === undefined) return {};
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) throw new ConfigError(`--${flagOf(key)}: expected a number, got "${value}"`);
  return { [key]: Math.round(number * unit) };
}

const FLAGS: Record<keyof SandboxLimits, string> = {
  cpuSeconds: 'cpu-seconds',
  wallMs: 'wall-seconds',
  memoryBytes: 'memory-mb',
  processes: 'processes',
  fileBytes: 'file-mb',
  openFiles: 'open-files',
  outputBytes: 'output-kb',
  workBytes: 'work-mb',
};

function flagOf(field: string): string {
  return FLAGS[field as keyof SandboxLimits] ?? field;
}

/** The verdict for a person: one line, then the output as the program wrote it. */
export function describeVerdict(verdict: SandboxVerdict): string {
  const cause = verdict.limit === undefined ? '' : ` (${verdict.limit} limit)`;
  const end = verdict.signal === null ? `exit code ${verdict.exitCode}` : `signal ${verdict.signal}`;
  const isolation = verdict.sandboxed ? 'sandboxed' : 'NOT sandboxed';
  const section = (name: string, text: string): string => (text === '' ? '' : `--- ${name} ---\n${text}${text.endsWith('\n') ? '' : '\n'}`);
  return `verdict: ${verdict.status}${cause}, ${end}, ${Math.round(verdict.durationMs)} ms, ${isolation}\n${section('stdout', verdict.stdout)}${section('stderr', verdict.stderr)}`;
}
