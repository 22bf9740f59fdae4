import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { ConfigFileIssue } from '../../core/errors/config-file-error.js';
import type { ServerInstance } from './server-config.js';

/** How a server is run from a NeMo Gym checkout: its argv, working directory and environment. */
export interface CheckoutCommand {
  command: string[];
  cwd: string;
  env: Record<string, string>;
}

/**
 * A server run as NeMo Gym's `ng_run` runs it from its checkout: `python <entrypoint>` in
 * `<checkout>/<type>/<impl>`, that folder on `PYTHONPATH`, with the server's own `.venv` when one was set
 * up there (NeMo Gym's default venv place), else `python3` from `PATH`. gymnast sets up no venv: a
 * checkout NeMo Gym never ran needs its servers' requirements installed first. A missing `entrypoint`
 * or file is an issue naming the key.
 */
export function checkoutCommand(
  instance: ServerInstance,
  checkout: string,
  env: Readonly<Record<string, string | undefined>>,
): CheckoutCommand | ConfigFileIssue {
  const { entrypoint } = instance.config;
  const dir = resolve(checkout, instance.type, instance.impl);
  if (entrypoint === undefined) return { path: `${instance.path}.entrypoint`, expected: `missing (expected the file NeMo Gym runs in ${dir}, e.g. app.py)` };
  if (isAbsolute(entrypoint)) return { path: `${instance.path}.entrypoint`, expected: `a path relative to ${dir}, as NeMo Gym requires, got ${entrypoint}` };
  if (!existsSync(join(dir, entrypoint)))
    return { path: `${instance.path}.entrypoint`, expected: `a file in ${dir} to run, as NeMo Gym runs it; ${join(dir, entrypoint)} is not there` };
  const venvPython = join(dir, '.venv', 'bin', 'python');
  const pythonPath = [dir, env.PYTHONPATH].filter(Boolean).join(':');
  return { command: [existsSync(venvPython) ? venvPython : 'python3', entrypoint], cwd: dir, env: { ...instance.config.env, PYTHONPATH: pythonPath } };
}
