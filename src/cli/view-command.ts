import { join } from 'node:path';
import { Command } from 'commander';
import { loadHfTokenizer } from '../tokens/hf-tokenizer.js';
import { findRuns } from '../servers/viewer/run-files.js';
import type { TokenDecoder } from '../core/token-decoder.js';
import type { ViewedRun } from '../servers/viewer/run-files.js';
import { writeViewerBundle } from '../servers/viewer/viewer-bundle.js';
import { ViewerServer } from '../servers/viewer/viewer-server.js';
import { parseApiKey, parsePort } from './flag-parsers.js';
import { openBrowser } from './open-browser.js';
import { portFlagHint } from './port-flag-hint.js';
import { untilSignalled } from './until-signalled.js';

interface ViewOptions {
  bundle?: string;
  overwrite: boolean;
  host: string;
  port: number;
  open: boolean;
  tokenizer?: string;
  apiKey?: string;
}

export function viewCommand(): Command {
  return new Command('view')
    .argument('<run>', 'an output file of gymnast collect (its _failures.jsonl beside it), or a folder of them')
    .description(
      'browse a run in the browser: overview, filtered rollouts, tokens with logprobs and the loss mask, GRPO groups side by side; follows a run still being collected',
    )
    .option(
      '--bundle <dir>',
      'write a static copy to DIR instead of serving: open DIR/index.html from disk (file://) or put DIR on any static host; no server, nothing followed; filters and text search run in the page',
    )
    .option('--overwrite', 'with --bundle: write into a DIR that is not empty (its data/ is replaced)', false)
    .option(
      '--host <host>',
      'interface to bind; loopback unless you mean to expose it (on loopback, only requests to 127.0.0.1, localhost or [::1] are answered)',
      '127.0.0.1',
    )
    .option('--port <port>', 'port (0 picks a free one)', parsePort, 0)
    .option('--no-open', 'print the URL without opening a browser')
    .option('--tokenizer <dir>', 'a folder with tokenizer.json to show each token as text (default: the embedded model’s, for runs that used it)')
    .option(
      '--api-key <key>',
      'require the key: Authorization: Bearer <key>, or the address printed (…/?key=<key>), which a browser trades for a cookie',
      parseApiKey,
    )
    .action(async (run: string, options: ViewOptions) => {
      const runs = await findRuns(run, { onNotice: (message) => process.stderr.write(`gymnast: ${message}\n`) });
      const tokenizer = options.tokenizer === undefined ? undefined : await loadHfTokenizer(options.tokenizer);
      if (options.bundle !== undefined) {
        // A static copy has no server to check a key: whoever can read DIR reads the runs.
        if (options.apiKey !== undefined) process.stderr.write('gymnast: --api-key guards the server only; a bundle is open to whoever can read its folder\n');
        return bundle(runs, options.bundle, options.overwrite, tokenizer);
      }
      const server = await ViewerServer.open({
        runs,
        host: options.host,
        port: options.port,
        ...(tokenizer ? { tokenizer } : {}),
        ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      });
      const base = await server.start().catch(portFlagHint);
      // The browser opens the key once; the viewer answers with a cookie and the address without it.
      const url = options.apiKey === undefined ? base : `${base}/?key=${encodeURIComponent(options.apiKey)}`;
      // The pages fill in as the runs are indexed: a big run shows its first rollouts at once.
      process.stdout.write(`viewing ${runs.length === 1 ? runs[0]!.output : `${runs.length} runs in ${run}`} at ${url} (indexing as you look); Ctrl-C stops\n`);
      if (options.open) openBrowser(url, (reason) => process.stderr.write(`gymnast: could not open a browser (${reason}); open ${url} yourself\n`));
      await untilSignalled(server);
    });
}

async function bundle(runs: readonly ViewedRun[], directory: string, overwrite: boolean, tokenizer: TokenDecoder | undefined): Promise<void> {
  const written = await writeViewerBundle({ runs, directory, overwrite, ...(tokenizer ? { tokenizer } : {}) });
  const size = `${(written.bytes / 1e6).toFixed(1)} MB in ${written.files.toLocaleString('en-US')} files`;
  const what = `${written.runs === 1 ? 'a run' : `${written.runs} runs`}, ${written.rollouts.toLocaleString('en-US')} ${written.rollouts === 1 ? 'rollout' : 'rollouts'}`;
  process.stdout.write(`wrote a static copy of ${what} to ${written.directory} (${size}); open ${join(written.directory, 'index.html')}\n`);
}
