import { Command } from 'commander';
import { builtinEnvironments } from '../environments/registry.js';

export function environmentsCommand(): Command {
  return new Command('environments')
    .description('list the built-in environments')
    .option('--json', 'print JSON instead of a table')
    .action((options: { json?: boolean }) => {
      const rows = builtinEnvironments.map(({ name, description }) => ({ name, description }));
      if (options.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      const width = Math.max(...rows.map((row) => row.name.length));
      for (const row of rows) process.stdout.write(`${row.name.padEnd(width)}  ${row.description}\n`);
    });
}
