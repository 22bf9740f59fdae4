import { Command } from 'commander';
import { reverifyRun, reverifyPaths, type ReverifySummary } from '../collect/reverify-run.js';
import { environmentVerifier, resourcesVerifier, type RowVerifier } from '../collect/row-verifier.js';
import { AbortedError } from '../core/errors/aborted-error.js';
import { ConfigError } from '../core/errors/config-error.js';
import { builtinEnvironments, findEnvironment } from '../environments/registry.js';
import { readFullRow } from '../core/row-reader.js';
import { readJsonLines } from '../util/json-lines.js';
import { parseAgentServer, parseConcurrency, parseSeconds } from './flag-parsers.js';

interface ReverifyFlags {
  output: string;
  env?: string;
  resourcesServer: Record<string, string>;
  concurrency?: number;
  timeout?: number;
  overwrite?: boolean;
}

/** `gymnast reverify RUN -o OUT`: scores saved rollouts again with a verifier, without a model (a fixed verifier, a judge that failed). */
export function reverifyCommand(): Command {
  return new Command('reverify')
    .description(
      "re-score saved rollouts with an environment's verifier, no model called: rows written again with reward (new) and previous_reward (saved), <stem>_reverify.json (what rose, fell, stayed) and <stem>_reverify_failures.jsonl (rows that could not be re-scored)",
    )
    .argument('<run>', 'a rollout file written by gymnast collect (any row schema version)')
    .requiredOption('-o, --output <file>', 'where the re-scored rows go')
    .option('--env <name>', "a built-in environment whose steps score the saved transcript again (default: the rows' agent_ref.name)")
    .option('--resources-server <name=url>', 'a NeMo Gym resources server: each row and its saved response are POSTed to its /verify', parseAgentServer, {})
    .option('--concurrency <n>', 'rows re-scored at once (default 16)', parseConcurrency)
    .option('--timeout <seconds>', 'deadline of one row (one /verify call, retries each their own) (default 300)', parseSeconds)
    .option('--overwrite', 'replace the files an earlier reverify wrote to -o (refused by default)')
    .action(async (run: string, flags: ReverifyFlags) => {
      const verifier = await verifierOf(run, flags);
      // Ctrl-C stops the rows in flight; the files keep what was written.
      const interrupted = new AbortController();
      const stop = () => interrupted.abort(new AbortedError('reverify was interrupted'));
      process.once('SIGINT', stop);
      try {
        const summary = await reverifyRun({
          run,
          output: flags.output,
          verifier,
          signal: interrupted.signal,
          ...(flags.concurrency === undefined ? {} : { concurrency: flags.concurrency }),
          ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout * 1000 }),
          overwrite: flags.overwrite === true,
        });
        process.stdout.write(summaryText(summary));
      } finally {
        process.off('SIGINT', stop);
      }
    });
}

async function verifierOf(run: string, flags: ReverifyFlags): Promise<RowVerifier> {
  const servers = Object.entries(flags.resourcesServer);
  if (servers.length > 1) throw new ConfigError('give one --resources-server: a run is re-scored by one verifier');
  if (servers.length === 1 && flags.env !== undefined) throw new ConfigError('give --env or --resources-server, not both');
  const timeoutMs = flags.timeout === undefined ? {} : { timeoutMs: flags.timeout * 1000 };
  if (servers.length === 1) return resourcesVerifier({ name: servers[0]![0], url: servers[0]![1], ...timeoutMs });
  const name = flags.env ?? (await firstAgentName(run));
  const entry = findEnvironment(name);
  if (!entry)
    throw new ConfigError(
      `no built-in environment "${name}": try ${builtinEnvironments.map((known) => known.name).join(', ')}, or --resources-server NAME=URL`,
    );
  return environmentVerifier(entry.create());
}

/** The agent the run's first row names: collect's built-in environments run under their own name. */
async function firstAgentName(run: string): Promise<string> {
  try {
    for await (const { line, text } of readJsonLines(run)) {
      if (text.trim() !== '') return readFullRow(JSON.parse(text), `${run}:${line}`).row.agent_ref.name;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ConfigError(`no run at ${run}: give a rollout file written by gymnast collect`);
    throw error;
  }
  throw new ConfigError(`${run} holds no rows to re-score`);
}

function summaryText(summary: ReverifySummary): string {
  const paths = reverifyPaths(summary.output);
  const mean = (value: number | null) => (value === null ? '-' : value.toFixed(4));
  return [
    `re-scored ${summary.rows - summary.failed} of ${summary.rows} rows with ${summary.verifier}: ${summary.rose} rose, ${summary.fell} fell, ${summary.unchanged} unchanged, ${summary.failed} failed to re-score`,
    `mean reward ${mean(summary.mean_previous_reward)} -> ${mean(summary.mean_reward)}`,
    `rows in ${summary.output}, summary in ${paths.summary}, failures in ${paths.failures}`,
    '',
  ].join('\n');
}
