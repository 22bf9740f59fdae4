import { realpathSync } from 'node:fs';
import { SandboxUnavailableError } from '../core/errors/sandbox-unavailable-error.js';
import { findExecutable } from './find-executable.js';

/** What a user reads when bubblewrap is missing: the command that fixes it, and the opt-in to run bare. */
export const INSTALL_BUBBLEWRAP =
  'bubblewrap (bwrap) is not installed, and gymnast runs model-written code only inside it: install it with `apt-get install bubblewrap` (Debian, Ubuntu; `dnf install bubblewrap` on Fedora), or opt in to running the code without isolation (--unsandboxed)';

/** The programs a sandbox is made of: bubblewrap outside, prlimit inside (it must live under /usr, the one folder bound). */
export interface SandboxTools {
  readonly bubblewrap: string;
  readonly prlimit: string;
}

/** Finds bubblewrap and prlimit on `path`, or throws a `SandboxUnavailableError` naming the install command. */
export function sandboxTools(path: string = process.env.PATH ?? ''): SandboxTools {
  const bubblewrap = findExecutable('bwrap', path);
  if (bubblewrap === undefined) throw new SandboxUnavailableError(INSTALL_BUBBLEWRAP);
  return { bubblewrap, prlimit: findPrlimit(path) };
}

/** prlimit (util-linux), resolved to its real path so that it is the same file inside the sandbox. */
export function findPrlimit(path: string = process.env.PATH ?? ''): string {
  const prlimit = findExecutable('prlimit', `${path}:/usr/bin`);
  if (prlimit === undefined) throw new SandboxUnavailableError('prlimit is not installed: install it with `apt-get install util-linux`');
  return realpathSync(prlimit);
}
