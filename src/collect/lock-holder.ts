import { hostname } from 'node:os';
import { basename } from 'node:path';
import { z } from 'zod';
import { pidScope } from '../util/pid-scope.js';
import { REDACTED, redactUrls } from '../util/redact-urls.js';

/**
 * Who writes a run: enough for a person to find the process, and for a later run to tell it is gone.
 * `boot_id` and `pid_namespace` say where `pid` means that process (see `PidScope`); locks written
 * before they were recorded, or where /proc does not tell them, have neither.
 */
export const LockHolder = z.object({
  pid: z.number().int().positive(),
  hostname: z.string(),
  started_at: z.string(),
  command: z.string(),
  boot_id: z.string().optional(),
  pid_namespace: z.string().optional(),
});
export type LockHolder = z.infer<typeof LockHolder>;

/** This process as a lock's holder, from now. */
export function currentHolder(): LockHolder {
  return {
    pid: process.pid,
    hostname: hostname(),
    started_at: new Date().toISOString(),
    command: redacted([basename(process.argv[1] ?? 'node'), ...process.argv.slice(2)]).join(' '),
    ...pidScope(),
  };
}

/** The lock file is readable by anyone who can list the folder: an API key on the command line, or credentials in a URL, stay out of it. */
function redacted(args: readonly string[]): string[] {
  return args.map((arg, index) => (args[index - 1] === '--api-key' ? REDACTED : redactUrls(arg.replace(/^--api-key=.*/, `--api-key=${REDACTED}`))));
}
