import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The places a hostile program aims its files at, by marker: if any exists on the host after a run,
 * the program wrote outside its work folder.
 */
export function escapeTargets(marker: string): string[] {
  return [join(tmpdir(), marker), join('/var/tmp', marker), join('/dev/shm', marker), join(process.cwd(), marker), join('/root', marker), join('/', marker)];
}

/** Files a run left outside its work folder (none, when it was contained). */
export function filesLeft(marker: string): string[] {
  return escapeTargets(marker).filter((path) => existsSync(path));
}

/**
 * Processes still alive that a run started: any whose command line names the marker (programs that
 * exec something else pass it on) or a sandboxed program's file (forks keep their parent's argv).
 */
export function processesLeft(marker: string): string[] {
  const left: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let commandLine: string;
    try {
      commandLine = readFileSync(join('/proc', entry, 'cmdline'), 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (commandLine.includes(marker) || /\/work\/main\.(py|js)\b/.test(commandLine)) left.push(`${entry}: ${commandLine}`);
  }
  return left;
}
