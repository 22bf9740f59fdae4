import { Command, InvalidArgumentError } from 'commander';
import { ConfigError } from '../core/errors/config-error.js';
import { builtinProfiles, DEFAULT_PROFILE, resolveSimProfile } from '../servers/sim/builtin-profiles.js';
import { SimFleet } from '../servers/sim/sim-fleet.js';
import { loadSimTokenizer } from '../servers/sim/sim-tokenizer.js';
import { parsePort, parseSeed } from './flag-parsers.js';
import { portFlagHint } from './port-flag-hint.js';
import { untilSignalled } from './until-signalled.js';

interface ServeSimFlags {
  replicas: number;
  host: string;
  port: number;
  profile: string;
  timeScale: number;
  seed: number;
  tokenizer?: string;
  servedModelName?: string;
}

/** One process can serve this many replicas: each is a server and an engine, and a fleet larger than a cluster's is no test of anything. */
const MAX_REPLICAS = 1024;

/** `gymnast serve sim`: a fleet of simulated vLLM replicas, one port each, on one simulated clock. */
export function serveSimCommand(): Command {
  return new Command('sim')
    .description(
      "simulate a fleet of vLLM servers on any CPU: the OpenAI-compatible API of serve model, replies timed by a GPU profile (continuous batching, paged KV cache with prefix caching, preemption), /metrics with vLLM's names, /pause and /resume, /sim/fail and /sim/recover",
    )
    .option('--replicas <n>', 'replicas to simulate, one port each', parseReplicas, 1)
    .option('--host <host>', 'interface to bind; loopback unless you mean to expose it', '127.0.0.1')
    .option('--port <port>', 'replica i listens on port + i (0 gives each a free port)', parsePort, 8000)
    .option('--profile <name|file>', `a built-in GPU profile (${Object.keys(builtinProfiles).join(', ')}) or a profile file (YAML or JSON)`, DEFAULT_PROFILE)
    .option(
      '--time-scale <x>',
      'simulated seconds per wall second: 60 runs an hour of fleet time in a minute (every time reported is simulated)',
      parseTimeScale,
      1,
    )
    .option('--seed <n>', 'seeds every reply: the same seed and requests give the same replies', parseSeed, 0)
    .option(
      '--tokenizer <dir>',
      "a folder with tokenizer.json and tokenizer_config.json, or a model in the Hugging Face cache (default: Qwen3's when installed, else the embedded model's)",
    )
    .option('--served-model-name <name>', "the model name /v1/models lists and requests must name (default: the profile's)")
    .action(async (flags: ServeSimFlags) => {
      if (flags.port !== 0 && flags.port + flags.replicas - 1 > 65_535)
        throw new ConfigError(
          `--port ${flags.port} with --replicas ${flags.replicas} needs ports up to ${flags.port + flags.replicas - 1}, past 65535: choose a lower --port, or --port 0 for free ones`,
        );
      const profile = await resolveSimProfile(flags.profile);
      const tokenizer = await loadSimTokenizer(flags.tokenizer);
      const fleet = new SimFleet({
        replicas: flags.replicas,
        profile,
        tokenizer,
        timeScale: flags.timeScale,
        seed: flags.seed,
        host: flags.host,
        port: flags.port,
        ...(flags.servedModelName === undefined ? {} : { servedModelName: flags.servedModelName }),
      });
      const urls = await fleet.start().catch(portFlagHint);
      const lines = urls.map((url, replica) => `replica ${replica}: ${url}`);
      lines.push(
        `simulating ${urls.length} × ${profile.name} (model "${fleet.modelName}", context ${profile.maxModelLen} tokens) at ${flags.timeScale}× wall time, tokens from ${tokenizer.source}; Ctrl-C stops`,
      );
      process.stdout.write(`${lines.join('\n')}\n`);
      await untilSignalled(fleet);
    });
}

function parseReplicas(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_REPLICAS)
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_REPLICAS}, got ${value}`);
  return Number(value);
}

function parseTimeScale(value: string): number {
  const scale = /^(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(value) ? Number(value) : NaN;
  if (!(scale > 0) || !Number.isFinite(scale)) throw new InvalidArgumentError(`expected a number > 0, got ${value}`);
  return scale;
}
