import { type Command, InvalidArgumentError } from 'commander';
import { routingPolicies, type Routing } from '../http-client/router/routing.js';
import { ConfigError } from '../core/errors/config-error.js';
import { headerValueProblem } from '../core/header-value.js';
import { hasCredentials } from '../policy/create-policy.js';
import { isHttpUrl } from '../util/is-http-url.js';
import { parsePolicySpec, policyKinds, type PolicySpec } from '../policy/index.js';
import { redactUrls } from '../util/redact-urls.js';

/** The flags that name a policy, as every command that runs one takes them. */
export interface PolicyFlags {
  policy: string;
  baseUrl: readonly string[];
  tokenizer?: string;
  model?: string;
  /** The inference server's key; `$GYMNAST_API_KEY` or `$OPENAI_API_KEY` when absent, unless a base URL has its own user and password. */
  apiKey?: string;
  /** Seconds. */
  requestTimeout?: number;
  requestAttempts?: number;
  retryBudget?: number;
  /** A token budget the user chose: it stands in for a context length the server does not report. */
  maxSeqLen?: number;
  routing?: Routing;
}

/** The policy the flags name; what a server policy lacks is named by its flag. */
export function policySpec(flags: PolicyFlags, apiKeyFlag = '--api-key'): PolicySpec {
  if (flags.policy === 'embedded') return parsePolicySpec({ kind: 'embedded' });
  if (!(policyKinds as readonly string[]).includes(flags.policy)) throw new ConfigError(`unknown --policy "${flags.policy}": use ${policyKinds.join(', ')}`);
  if (flags.baseUrl.length === 0) throw new ConfigError(`--policy ${flags.policy} needs at least one --base-url`);
  if (!flags.tokenizer) throw new ConfigError(`--policy ${flags.policy} needs --tokenizer DIR (the model's tokenizer.json and tokenizer_config.json)`);
  const notHttp = flags.baseUrl.find((url) => !isHttpUrl(url));
  if (notHttp !== undefined) throw new ConfigError(`--base-url: expected an http or https URL, got ${redactUrls(notHttp)}`);
  // A key in the environment is a default; credentials written into a base URL are what this run was told.
  const apiKey = flags.apiKey ?? (flags.baseUrl.some(hasCredentials) ? undefined : (process.env.GYMNAST_API_KEY ?? process.env.OPENAI_API_KEY));
  if (apiKey !== undefined)
    checkHeaderFlag(flags.apiKey !== undefined ? apiKeyFlag : process.env.GYMNAST_API_KEY !== undefined ? '$GYMNAST_API_KEY' : '$OPENAI_API_KEY', apiKey);
  return parsePolicySpec({
    kind: flags.policy,
    baseUrls: flags.baseUrl,
    tokenizerDir: flags.tokenizer,
    ...(flags.model ? { model: flags.model } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(flags.requestTimeout === undefined ? {} : { requestTimeoutMs: flags.requestTimeout * 1000 }),
    ...(flags.requestAttempts === undefined ? {} : { requestAttempts: flags.requestAttempts }),
    ...(flags.retryBudget === undefined ? {} : { retryBudget: flags.retryBudget }),
    ...(flags.maxSeqLen === undefined ? {} : { maxModelLen: flags.maxSeqLen }),
    ...(flags.routing === undefined ? {} : { routing: flags.routing }),
  });
}

/** A flag (or environment variable) sent in an HTTP header: refused by its name, never shown, when it cannot be. */
export function checkHeaderFlag(name: string, value: string): void {
  const problem = headerValueProblem(value);
  if (problem) throw new ConfigError(`${name}: ${problem}`);
}

/** The options that name a policy (`--policy`, `--base-url`, `--model`, `--tokenizer`), worded once for every command that runs one. */
export function withPolicyOptions(command: Command): Command {
  return command
    .option('--policy <name>', `${policyKinds.join(', ')} (embedded, the default, needs no server)`, 'embedded')
    .option(
      '--base-url <url>',
      'inference server base URL, repeat for replicas (with a server policy)',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option('--model <name>', 'served model name (default: what /v1/models lists)')
    .option('--tokenizer <dir>', "the model's tokenizer.json + tokenizer_config.json (with a server policy)")
    .option(
      '--routing <policy>',
      "how requests are placed on the --base-url replicas: sticky (the default: an episode stays on one replica, new ones go to the least loaded or to their GRPO group's), least-loaded (each request, no affinity) or round-robin",
      parseRouting,
    );
}

function parseRouting(value: string): Routing {
  if (!(routingPolicies as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected ${routingPolicies.join(', ')}, got "${value}"`);
  return value as Routing;
}
