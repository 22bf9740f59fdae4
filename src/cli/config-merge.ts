import type { Command } from 'commander';
import { ConfigError } from '../core/errors/config-error.js';
import type { CollectFlags } from './collect-flags.js';
import { configValue, describeValue } from './option-value.js';

/**
 * Merges `--config FILE` (YAML or JSON, keys named like the flags: `num-repeats`, `num_repeats` or
 * `numRepeats`) under the flags: a flag given on the command line wins over the file, the file over
 * the defaults. Values from the file go through the same parsers as flags, and every bad key is
 * reported at once, each as `FILE: key: what was expected, got what`. The file's values are set on the
 * command as commander's `config` source, so `opts()` is the one view of the merged options.
 */
export async function mergeConfigFile(command: Command): Promise<CollectFlags> {
  const file = command.opts<CollectFlags>().config;
  if (!file) return withRequired(command.opts<CollectFlags>(), undefined);
  const { readYamlFile } = await import('../collect/read-yaml-file.js');
  const values = await readYamlFile(file, 'config');
  if (typeof values !== 'object' || values === null || Array.isArray(values))
    throw new ConfigError(`${file}: expected a mapping of option names to values (e.g. num-repeats: 4), got ${describeValue(values)}`);
  const problems: string[] = [];
  const merged = new Map<string, unknown>();
  for (const [key, value] of Object.entries(values)) {
    const name = key.replace(/[-_]([a-z])/g, (_, letter: string) => letter.toUpperCase());
    const option = command.options.find((candidate) => candidate.attributeName() === name);
    if (!option || name === 'config') {
      problems.push(`${key}: unknown option (see gymnast collect --help)`);
      continue;
    }
    if (command.getOptionValueSource(name) === 'cli') continue;
    try {
      merged.set(name, configValue(option, value));
    } catch (error) {
      problems.push(`${key}: ${(error as Error).message}`);
    }
  }
  if (problems.length === 1) throw new ConfigError(`${file}: ${problems[0]}`);
  if (problems.length > 1) throw new ConfigError([`${problems.length} problems in ${file}:`, ...problems.map((problem) => `  ${file}: ${problem}`)].join('\n'));
  for (const [name, value] of merged) command.setOptionValueWithSource(name, value, 'config');
  return withRequired(command.opts<CollectFlags>(), file);
}

/** Input and output are needed whether they come from the command line or the config file, and as paths. */
function withRequired(flags: CollectFlags, config: string | undefined): CollectFlags {
  for (const required of ['input', 'output'] as const) {
    if (flags[required] === undefined)
      throw new ConfigError(`collect needs --${required}${config === undefined ? '' : ` (on the command line or in ${config})`}`);
    if (flags[required] === '') throw new ConfigError(`--${required}: expected a file path, got ""`);
  }
  return flags;
}
