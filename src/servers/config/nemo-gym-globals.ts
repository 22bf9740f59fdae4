import { resolve } from 'node:path';

/** Where the servers of a config run listen, as NeMo Gym's parser records them. */
export interface ServerPorts {
  head: { host: string; port: number };
  /** Every started server's port, in start order. */
  servers: readonly number[];
  /** The working directory NeMo Gym resolves `results_dir` and `cache_dir` against. */
  cwd: string;
}

/**
 * The top-level keys NeMo Gym's config parser (`GlobalConfigDictParser.parse`) fills in before it hands
 * the config to its servers as `NEMO_GYM_CONFIG_DICT`, with its defaults; a value the config gives is
 * kept, as its `setdefault` keeps it. A server reads some of them unguarded at startup: without
 * `dry_run`, `SimpleServer.run_webserver` dies with `Missing key dry_run`; `local_vllm_model` reads
 * `disallowed_ports`; agents read `results_dir` and `cache_dir`. The keys only NeMo Gym's venv setup
 * reads in its own process (`head_server_deps`, `python_version`, `uv_*`) describe a Python parent
 * gymnast is not, and `ray_head_node_address` a Ray cluster gymnast does not start, so they are left out.
 */
export function withNemoGymGlobals(config: Readonly<Record<string, unknown>>, ports: ServerPorts): Record<string, unknown> {
  const filled: Record<string, unknown> = {
    dry_run: false,
    use_absolute_ip: false,
    port_range_low: 10_001,
    port_range_high: 20_000,
    model_endpoint_readiness_timeout_seconds: 600,
    results_dir: 'results',
    cache_dir: 'cache',
    ...config,
    head_server: ports.head,
    // Assigned, not defaulted: NeMo Gym records every port its run holds, so a server starting more picks others.
    disallowed_ports: [ports.head.port, ...ports.servers],
  };
  // Absolute, as NeMo Gym makes them: each server resolves a relative path against its own working directory.
  for (const key of ['results_dir', 'cache_dir']) {
    if (typeof filled[key] === 'string' && filled[key] !== '') filled[key] = resolve(ports.cwd, filled[key]);
  }
  return filled;
}

/** NeMo Gym hands its run-wide `skip_verification` and `skip_verification_reward` to each agent that sets neither. */
export function agentDefaults(config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const keys = ['skip_verification', 'skip_verification_reward'].filter((key) => config[key] !== undefined && config[key] !== null);
  return Object.fromEntries(keys.map((key) => [key, config[key]]));
}
