import { startConfigRun, type ConfigRun, type ConfigRunOptions } from '../servers/config/config-run.js';
import { loadServerConfig } from '../servers/config/server-config.js';

/**
 * `gymnast serve --config X.yaml`: every server of a NeMo Gym-shaped config (NeMo Gym's `ng_run`),
 * a table of where each listens, and the head server. Runs until SIGINT or SIGTERM, then stops them
 * all, external processes included. A config gymnast cannot run, or a server that does not come up,
 * fails the command naming it, after stopping whatever had started.
 */
export async function serveConfig(file: string, options: ConfigRunOptions = {}): Promise<void> {
  const config = loadServerConfig(file);
  // Signals during startup stop it too: a Ctrl-C while the model loads must not leave a spawned server behind.
  let stopRequested = false;
  let run: ConfigRun | undefined;
  let stopped: (() => void) | undefined;
  const stop = () => {
    stopRequested = true;
    if (run) void run.close().then(() => stopped?.());
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    run = await startConfigRun(config, options);
  } catch (error) {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    throw error;
  }
  const finished = new Promise<void>((resolve) => (stopped = resolve));
  if (stopRequested) stop();
  else process.stdout.write(`${serverTable(run)}\nhead server at ${run.headUrl} (GET /server_instances, GET /global_config_dict_yaml); Ctrl-C stops all\n`);
  await finished;
}

/** name │ type │ impl │ URL, aligned. */
function serverTable(run: ConfigRun): string {
  const rows = [['name', 'type', 'impl', 'url'], ...run.servers.map((server) => [server.name, server.type, server.impl, server.url])];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
