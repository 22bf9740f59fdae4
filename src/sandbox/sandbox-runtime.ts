import { accessSync, constants, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { SandboxUnavailableError } from '../core/errors/sandbox-unavailable-error.js';

/** The languages a sandbox runs. */
export const SANDBOX_LANGUAGES = ['python', 'node'] as const;
export type SandboxLanguage = (typeof SANDBOX_LANGUAGES)[number];

/** How to run one language's program: the interpreter, its arguments, and the program's file name. */
export interface SandboxRuntime {
  readonly interpreter: string;
  readonly args: (file: string) => string[];
  readonly fileName: string;
  /**
   * Folders the interpreter needs besides `/usr`, bound read-only: an interpreter installed elsewhere
   * (nvm, a pyenv version) brings its own prefix.
   */
  readonly binds: readonly string[];
  /**
   * The least address space the interpreter starts in: V8 reserves about 700 MiB before it runs a line
   * (and with less it hangs at start rather than failing), so Node's cap is raised to 1 GiB.
   */
  readonly minimumMemoryBytes: number;
}

// The system's Python before anything on PATH: a pyenv or venv `python3` on PATH is often a shell
// shim that reads the user's home, which the sandbox hides.
const PYTHON_CANDIDATES = ['/usr/bin/python3', '/usr/local/bin/python3'];

const cache = new Map<SandboxLanguage, SandboxRuntime>();

/** The runtime for `language` on this machine (found once per process). */
export function sandboxRuntime(language: SandboxLanguage): SandboxRuntime {
  let runtime = cache.get(language);
  if (runtime === undefined) {
    runtime = language === 'python' ? pythonRuntime() : nodeRuntime();
    cache.set(language, runtime);
  }
  return runtime;
}

function pythonRuntime(): SandboxRuntime {
  const found = PYTHON_CANDIDATES.find(isExecutable);
  if (found === undefined)
    throw new SandboxUnavailableError(`no Python 3 interpreter at ${PYTHON_CANDIDATES.join(' or ')}: install it with \`apt-get install python3\``);
  const interpreter = realpathSync(found);
  // -I: no user site-packages, no PYTHON* variables, no script folder on sys.path; -u: output not
  // buffered, so what a program printed before a limit stopped it is kept.
  return { interpreter, args: (file) => ['-I', '-u', file], fileName: 'main.py', binds: prefixOutsideUsr(interpreter), minimumMemoryBytes: 0 };
}

function nodeRuntime(): SandboxRuntime {
  // The Node running gymnast: it exists, and its version is the one the user chose.
  const interpreter = realpathSync(process.execPath);
  return { interpreter, args: (file) => [file], fileName: 'main.js', binds: prefixOutsideUsr(interpreter), minimumMemoryBytes: 1024 * 1024 * 1024 };
}

/** `/opt/node/bin/node` needs `/opt/node`; anything under `/usr` is bound already. */
function prefixOutsideUsr(interpreter: string): string[] {
  return interpreter.startsWith('/usr/') ? [] : [dirname(dirname(interpreter))];
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
