import { Command } from 'commander';
import { assertHealthy, type MaxUnhealthy } from '../collect/health/health-gate.js';
import { healthRuns } from '../collect/health/health-runs.js';
import type { HealthSummary } from '../collect/health/health-summary.js';
import { healthCheckList, healthTable } from '../collect/health/health-table.js';
import { runHealth } from '../collect/health/run-health.js';
import { maxUnhealthyOf, maxUnhealthyOption } from './max-unhealthy-option.js';

interface HealthFlags {
  tokenizer?: string;
  maxUnhealthy?: MaxUnhealthy;
  json?: boolean;
}

/** `gymnast health RUN`: a verdict per rollout and a summary per run; exits 1 past `--max-unhealthy`, so a pipeline can gate on it. */
export function healthCommand(): Command {
  return new Command('health')
    .description(
      'check rollouts for duplicated or missing keys, empty or runaway generations, token counts, token ids that do not decode to the text, bad logprobs and tasks that always fail; writes <stem>_health.json (summary) and <stem>_health.jsonl (flagged rollouts)',
    )
    .argument('<run>', 'a rollout file (its _failures.jsonl and _materialized_inputs.jsonl beside it are read too) or a folder of them')
    .option(
      '--tokenizer <dir>',
      "the model's tokenizer.json + tokenizer_config.json, for the decode and vocabulary checks (default: the embedded model's, when the run used it, except on the rows of its --agent-servers)",
    )
    .addOption(maxUnhealthyOption())
    .option('--json', 'print the summaries as JSON instead of a table')
    .addHelpText('after', `\nChecks:\n${healthCheckList()}\n`)
    .action(async (run: string, flags: HealthFlags) => {
      const summaries: HealthSummary[] = [];
      for (const output of healthRuns(run)) {
        const summary = await runHealth(output, flags.tokenizer === undefined ? {} : { tokenizer: flags.tokenizer });
        summaries.push(summary);
        if (!flags.json) process.stdout.write(healthTable(summary));
      }
      if (flags.json) process.stdout.write(`${JSON.stringify(summaries.length === 1 ? summaries[0] : summaries, null, 2)}\n`);
      assertHealthy(summaries, maxUnhealthyOf(flags));
    });
}
