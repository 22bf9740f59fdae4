import { readFile } from 'node:fs/promises';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { ConfigError } from '../core/errors/config-error.js';
import { fileErrorReason } from '../util/file-error-reason.js';

// Callers import this module when they read a file, not at every start of the CLI: the YAML parser
// is ~260 KB of code. (Importing 'yaml' itself lazily would not do: in the CLI bundle, a dynamic
// import of a CommonJS package gives only its default export.)

/**
 * A YAML (or JSON) file a run is configured by, parsed; a file that cannot be read or parsed is a
 * ConfigError naming it, and the line and column where the YAML parser found the problem.
 */
export async function readYamlFile(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${what} ${path}: ${fileErrorReason(error) ?? String(error)}`, { cause: error });
  }
  try {
    // Warnings (a list as a mapping key, …) would reach stderr as Node process warnings; the keys are checked anyway.
    return parseYaml(text, { logLevel: 'error' });
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? `:${error.linePos[0].line}:${error.linePos[0].col}` : '';
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.replace(/ at line \d+, column \d+:$/, '');
    throw new ConfigError(`${path}${where}: not valid YAML or JSON: ${reason}`, { cause: error });
  }
}
