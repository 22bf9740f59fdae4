import { Option } from 'commander';
import { DEFAULT_MAX_UNHEALTHY, formatMaxUnhealthy, type MaxUnhealthy } from '../collect/health/health-gate.js';
import { parseMaxUnhealthy } from './flag-parsers.js';

/**
 * `--max-unhealthy`, one flag for `collect` and `health` so that both end a run by one rule. No
 * default value is set on the option (a config file's value goes through the parser like the flag's):
 * callers read it through `maxUnhealthyOf`, which gives `DEFAULT_MAX_UNHEALTHY` when it is absent.
 */
export function maxUnhealthyOption(): Option {
  return new Option(
    '--max-unhealthy <n|fraction>',
    `unhealthy rollouts allowed before exiting 1: a count, or a fraction of the rollouts such as 0.01 (default ${formatMaxUnhealthy(DEFAULT_MAX_UNHEALTHY)}: any error fails, warnings pass)`,
  ).argParser(parseMaxUnhealthy);
}

/** The `--max-unhealthy` a command runs with: the one given, else the default. */
export function maxUnhealthyOf(flags: { maxUnhealthy?: MaxUnhealthy | undefined }): MaxUnhealthy {
  return flags.maxUnhealthy ?? DEFAULT_MAX_UNHEALTHY;
}
