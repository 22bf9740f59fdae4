/*
 * Mutation testing (issue 24) of the modules that carry gymnast's promises. Too slow for every CI run:
 * `npm run mutate` runs it by hand and docs/mutation-report.md keeps the result.
 *
 * Each module lists only the spec files that exercise it, so one module's run fits on two shared
 * cores. The tap runner (first-party; node:test prints TAP) runs each spec file in its own process
 * and records which files cover which mutant, so a mutant only reruns the files that reach it.
 *
 * No @stryker-mutator/typescript-checker: it drives the TypeScript compiler API, which TypeScript 7
 * (this project's compiler) no longer ships. tsx strips types, so a mutant that would not type-check
 * still runs; the report says so where such a mutant survives.
 */
export const modules = {
  'pass-at-k': {
    mutate: ['src/metrics/pass-at-k.ts'],
    tests: ['test/metrics/pass-at-k-reference.test.ts', 'test/metrics/nemo-gym-aggregate.test.ts', 'test/metrics/aggregate-files.test.ts'],
  },
  'failure-class': {
    mutate: ['src/core/failure-class.ts'],
    tests: ['test/core/failure-class-mutants.test.ts', 'test/core/result-rows.test.ts', 'test/core/records.test.ts', 'test/engine/failures.test.ts'],
  },
  'token-ledger': {
    mutate: ['src/tokens/token-ledger.ts'],
    tests: ['test/tokens/token-ledger.test.ts', 'test/tokens/qwen3-ledger.test.ts', 'test/tokens/conversation-renderer.test.ts'],
  },
  'generate-turn': {
    mutate: ['src/engine/generate-turn.ts'],
    tests: [
      'test/engine/generate-turn.test.ts',
      'test/engine/episode-loop.test.ts',
      'test/engine/failures.test.ts',
      'test/engine/limits.test.ts',
      'test/engine/observation-tokens.test.ts',
    ],
  },
  'result-readers': {
    mutate: ['src/policy/*/read-*.ts'],
    tests: [
      'test/policy/wire-response-fast-path.test.ts',
      'test/policy/chat-and-sglang.test.ts',
      'test/policy/vllm-completions.test.ts',
      'test/policy/finish-reasons.test.ts',
      'test/policy/sampler-replies.test.ts',
    ],
  },
  resume: {
    mutate: ['src/collect/resume-state.ts'],
    tests: [
      'test/collect/resume-state.test.ts',
      'test/collect/resume.test.ts',
      'test/collect/resume-nemo-gym-run.test.ts',
      'test/collect/prompt-too-long.test.ts',
    ],
  },
  sinks: {
    mutate: ['src/collect/jsonl-sink.ts', 'src/collect/jsonl-rollout-sink.ts'],
    tests: ['test/collect/jsonl-sinks.test.ts', 'test/collect/jsonl-rollout-sink-batches.test.ts', 'test/collect/disk-full.test.ts'],
  },
  'run-lock': {
    mutate: ['src/collect/run-lock.ts', 'src/collect/lock-claim.ts'],
    tests: ['test/collect/run-lock-direct.test.ts', 'test/collect/run-lock.test.ts', 'test/collect/run-lock-takeover.test.ts'],
  },
  health: {
    mutate: ['src/metrics/health/*.ts'],
    // In-process specs only: a mutant is active in the spec's own process, never in a CLI it spawns.
    tests: [
      'test/metrics/health-rollout-findings.test.ts',
      'test/metrics/health-run-keys.test.ts',
      'test/metrics/health-training-token-findings.test.ts',
      'test/metrics/health-logprob-findings.test.ts',
      'test/metrics/health-check.test.ts',
      'test/collect/health.test.ts',
      'test/collect/stored-rollout-tasks.test.ts',
    ],
  },
};

/** The Stryker options for one module; `stryker run` reads the module from MUTATE_MODULE. */
export function configFor(name) {
  const module = modules[name];
  if (module === undefined) {
    throw new Error(`unknown mutation module "${name}"; one of: ${Object.keys(modules).join(', ')}`);
  }
  return {
    $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    testRunner: 'tap',
    tap: {
      testFiles: module.tests,
      nodeArgs: ['--test-reporter=tap', '-r', '{{hookFile}}', '--import', 'tsx', '--import', './test/support/isolated-cache.ts', '{{testFile}}'],
    },
    mutate: module.mutate,
    // Stryker rewrites the sandbox's tsconfig.json with the compiler API TypeScript 7 lacks; tsx reads
    // the copied tsconfig.json as it is, so no rewrite is needed and this name points at no file.
    tsconfigFile: 'no-tsconfig-rewrite.json',
    coverageAnalysis: 'perTest',
    concurrency: 2,
    timeoutMS: 4000,
    reporters: ['clear-text', 'progress', 'json'],
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    tempDirName: `.stryker-tmp/${name}`,
    // Other modules' sandboxes and reports are never part of this one's.
    ignorePatterns: ['.stryker-tmp', 'reports'],
    cleanTempDir: true,
  };
}

export default configFor(process.env.MUTATE_MODULE ?? 'pass-at-k');
