import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { ROW_SCHEMA_VERSION } from '../src/core/result-row.js';

/** Every hundredth rollout fails once before it succeeds; every thousandth never succeeds. */
const FAILS_ONCE = 100;
const NEVER_SUCCEEDS = 1000;
const TURNS = 3;

/** The files `gymnast collect` leaves for a run of `tasks` × `rollouts`: results, failure sidecar, materialized inputs. */
export interface RunFiles {
  results: string;
  failures: string;
  materialized: string;
}

/**
 * Writes a realistic finished run into `dir`: gymnast version-2 rows of an arithmetic environment
 * with three turns each (messages with token ids and logprobs, turn records, usage, terminated and
 * truncated, an extracted answer), results in completion order (shuffled within blocks), a few
 * failures. Streams, so any size fits.
 */
export async function writeRunFiles(dir: string, tasks: number, rollouts: number): Promise<RunFiles> {
  const files = { results: join(dir, 'run.jsonl'), failures: join(dir, 'run_failures.jsonl'), materialized: join(dir, 'run_materialized_inputs.jsonl') };
  const results = createWriteStream(files.results);
  const failures = createWriteStream(files.failures);
  const materialized = createWriteStream(files.materialized);
  for (let task = 0; task < tasks; task++) {
    for (let rollout = 0; rollout < rollouts; rollout++) await write(materialized, plannedRow(task, rollout));
  }
  // Rollouts finish out of order: blocks of 64 tasks, each block's rollouts shuffled by a fixed stride.
  for (let block = 0; block < tasks; block += 64) {
    const keys = [];
    for (let task = block; task < Math.min(tasks, block + 64); task++) for (let rollout = 0; rollout < rollouts; rollout++) keys.push([task, rollout] as const);
    for (let i = 0; i < keys.length; i++) {
      const [task, rollout] = keys[(i * 37) % keys.length]!;
      const serial = task * rollouts + rollout;
      if (serial % FAILS_ONCE === 0 || serial % NEVER_SUCCEEDS === 7) await write(failures, failureRow(task, rollout));
      if (serial % NEVER_SUCCEEDS !== 7) await write(results, resultRow(task, rollout));
    }
  }
  await Promise.all([results, failures, materialized].map((stream) => close(stream)));
  return files;
}

const question = (task: number) => ({ a: 10 + (task % 90), b: 11 + ((task * 7) % 80) });

export function plannedRow(task: number, rollout: number) {
  const { a, b } = question(task);
  return {
    responses_create_params: { input: [{ role: 'user', content: `What is ${a}+${b}? Use the calculator, then answer.` }] },
    agent_ref: { type: 'responses_api_agents', name: 'arithmetic' },
    problem: `${a}+${b}`,
    answer: a + b,
    _ng_task_index: task,
    _ng_rollout_index: rollout,
  };
}

const tokens = (count: number, seed: number) => Array.from({ length: count }, (_, i) => (seed * 131 + i * 17) % 151_000);

export function resultRow(task: number, rollout: number) {
  const { a, b } = question(task);
  const correct = (task + rollout) % 3 !== 0;
  const answer = String(correct ? a + b : a + b + 1 + (rollout % 2));
  const prompt = 42;
  const turns = Array.from({ length: TURNS }, (_, turn) => ({ generated: 18 + ((task + turn) % 13), env: turn === TURNS - 1 ? 0 : 9 }));
  let sequence = prompt;
  const turnRecords = turns.map(({ generated, env }, index) => {
    const record = {
      index,
      prompt_tokens: sequence,
      generated_tokens: generated,
      env_tokens: env,
      finish_reason: { unified: 'stop', raw: 'stop' },
      reward: index === TURNS - 1 && correct ? 1 : 0,
      ...(index === TURNS - 1 ? { answer, env_terminated: true } : {}),
      observation_truncated: false,
      timing: { generation_ms: 35.5 + index, env_ms: 0.4 },
    };
    sequence += generated + env;
    return record;
  });
  const generatedIds = turns.map(({ generated }, turn) => tokens(generated, task + turn));
  return {
    schema_version: ROW_SCHEMA_VERSION,
    ...plannedRow(task, rollout),
    duration_ms: 120 + (rollout % 7),
    response: {
      output: turns.map((_, turn) => ({
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: turn === TURNS - 1 ? answer : 'calc(…)', annotations: [] }],
      })),
      usage: {
        input_tokens: turnRecords.reduce((total, turn) => total + turn.prompt_tokens, 0),
        output_tokens: turns.reduce((total, turn) => total + turn.generated, 0),
        total_tokens: sequence,
      },
    },
    reward: correct ? 1 : 0,
    terminated: true,
    truncated: false,
    num_turns: TURNS,
    extracted_answer: answer,
    token_drift_count: 0,
    has_training_tokens: true,
    termination: { kind: 'env-done' },
    messages: [
      { role: 'user', content: `What is ${a}+${b}?`, token_ids: tokens(prompt, task) },
      ...turns.flatMap(({ env }, turn) => [
        {
          role: 'assistant',
          content: turn === TURNS - 1 ? answer : 'calc(…)',
          token_ids: generatedIds[turn]!,
          generation_logprobs: generatedIds[turn]!.map((id) => -((id % 97) / 50)),
        },
        ...(env > 0 ? [{ role: 'tool', content: String(a + b), token_ids: tokens(env, turn) }] : []),
      ]),
    ],
    turns: turnRecords,
    env_metadata: null,
    sampling: { temperature: 1, top_p: 1, max_tokens: 64, greedy: false },
  };
}

function failureRow(task: number, rollout: number) {
  return {
    schema_version: ROW_SCHEMA_VERSION,
    ...plannedRow(task, rollout),
    duration_ms: 30_000,
    _ng_failure_class: 'timeout',
    error: { kind: 'timeout', name: 'RequestTimeoutError', message: 'no response in 30000 ms' },
  };
}

async function write(stream: WriteStream, row: object): Promise<void> {
  if (!stream.write(`${JSON.stringify(row)}\n`)) await once(stream, 'drain');
}

async function close(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, 'close');
}
