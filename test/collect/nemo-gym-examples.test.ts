import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readFullRow, type Message } from '../../src/core/index.js';
import { blackjack } from '../../src/servers/resources/examples/blackjack.js';
import { exampleServers } from '../../src/servers/resources/examples/example-servers.js';
import type { Responder } from '../../src/testing/index.js';
import { startServers } from '../support/loopback-model.js';
import { qwen3Directory } from '../support/qwen3.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/gymnast.js');
const fixturePath = (path: string) => fileURLToPath(new URL(`../fixtures/nemo-gym/${path}`, import.meta.url));
const readJsonl = (path: string) =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Row)
    : [];

// biome-ignore lint/suspicious/noExplicitAny: rows of NeMo Gym's files, read field by field as each spec needs
type Row = Record<string, any>;
const REPEATS = 2;

// ---------------------------------------------------------------------------------------------
// Reading the prompt the way a model does: Qwen3's rendered chat, block by block.

interface Block {
  role: string;
  content: string;
}

/** The rendered prompt's `<|im_start|>role\n…<|im_end|>` blocks, the open assistant turn last. */
function blocks(text: string): Block[] {
  return text
    .split('<|im_start|>')
    .slice(1)
    .map((block) => {
      const newline = block.indexOf('\n');
      return { role: block.slice(0, newline), content: block.slice(newline + 1).replace(/<\|im_end\|>\n?$/, '') };
    });
}

/** The last thing a person (not a tool) said, and the tool answers that came after it. */
function lastQuestion(text: string): { question: string; toolAnswers: string[]; turnsSince: number } {
  const all = blocks(text);
  const index = all.findLastIndex((block) => block.role === 'user' && !block.content.startsWith('<tool_response>'));
  const since = all.slice(index + 1);
  const toolAnswers = since.flatMap((block) => [...block.content.matchAll(/<tool_response>\n([\s\S]*?)\n<\/tool_response>/g)].map((match) => match[1]!));
  return { question: all[index]?.content ?? '', toolAnswers, turnsSince: since.filter((block) => block.role === 'assistant').length - 1 };
}

const systemText = (text: string) => blocks(text).find((block) => block.role === 'system')?.content ?? '';
const callOf = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

// ---------------------------------------------------------------------------------------------
// One scripted player per example: it plays the task from what the prompt says, and gets a few
// rows wrong on purpose (named below), so the rewards it earns are known and not all the same.

/** Looks up the weather of the cities the user names ("sf", "3 cities in the us"); asks back when none. */
const weatherUser: Responder = ({ text }) => {
  const { question, toolAnswers } = lastQuestion(text);
  const cities = /\bsf\b/.test(question) ? ['San Francisco'] : /3 cities/.test(question) ? ['New York', 'Chicago', 'Seattle'] : [];
  if (cities.length === 0) return 'Which city are you in?';
  if (toolAnswers.length === 0) return cities.map((city) => callOf('get_weather', { city })).join('\n');
  return toolAnswers.map((answer) => (JSON.parse(answer) as { weather_description: string }).weather_description).join(' ');
};

/** "add a then add b then get the count": both increments, the read, the count read. Wrong on purpose: "add 7" adds 7 and 9. */
const counterUser: Responder = ({ text }) => {
  const { question, toolAnswers } = lastQuestion(text);
  const [, a, b] = /add (\d+) then add (\d+)/.exec(question)!;
  if (toolAnswers.length === 0)
    return `${callOf('increment_counter', { count: Number(a) })}\n${callOf('increment_counter', { count: a === '7' ? Number(b) + 1 : Number(b) })}`;
  if (toolAnswers.length === 2) return callOf('get_counter_value', {});
  return `The count is ${(JSON.parse(toolAnswers.at(-1)!) as { count: number }).count}.`;
};

/** Answers in the form the question asks for (box, "Final answer:", last line). Wrong on purpose: the moons. */
const quizUser: Responder = ({ text }) => {
  const { question } = lastQuestion(text);
  const speed = /travels (\d+) km in (\d+) minutes/.exec(question);
  const sum = /Simplify (\d+) divided by (\d+), then add (\d+)/.exec(question);
  const answer = /capital of France/.test(question)
    ? 'Paris'
    : speed
      ? String(Number(speed[1]) / (Number(speed[2]) / 60))
      : sum
        ? String(Number(sum[1]) / Number(sum[2]) + Number(sum[3]))
        : /most moons/.test(question)
          ? 'Jupiter'
          : /largest ocean/.test(question)
            ? 'Pacific Ocean'
            : 'I do not know';
  if (question.includes('\\boxed{}')) return `Let me work it out.\nThe answer is \\boxed{${answer}}.`;
  if (question.includes('Final answer:')) return `Thinking it through.\nFinal answer: ${answer}`;
  return `Thinking it through.\n${answer}`;
};

/** Which option text is right, by what the question asks. Wrong on purpose: the next-generation sequencing one. */
const mcqaKnowledge: [RegExp, string][] = [
  [/cystic fibrosis\?/, 'Polymerase Chain Reaction (PCR)'],
  [/predictive genetic testing/, "An individual with a family history of Huntington's disease"],
  [/next-generation sequencing|next-g/, 'NGS can identify both genetic and epigenetic alterations'],
  [/polygenic/, 'A polygenic risk score'],
  [/identify and quantify the species/, '16S rRNA Gene Sequencing'],
];
const mcqaUser: Responder = ({ text }) => {
  const { question } = lastQuestion(text);
  const wanted = mcqaKnowledge.find(([pattern]) => pattern.test(question))![1];
  const letter = question.split('\n').find((line) => /^[A-J]: /.test(line) && line.slice(3).startsWith(wanted))![0];
  return `Step by step: ${wanted} fits best.\n\\boxed{${letter}}`;
};

/** Answers each question of the conversation. Wrong on purpose: Jupiter's moons (79, not 95). */
const conversationUser: Responder = ({ text }) => {
  const { question } = lastQuestion(text);
  const product = /What is (\d+) multiplied by (\d+)/.exec(text);
  const divisor = /divide that result by (\d+)/.exec(question);
  if (product && divisor) return `That is ${(Number(product[1]) * Number(product[2])) / Number(divisor[1])}.`;
  if (product) return `That is ${Number(product[1]) * Number(product[2])}.`;
  const answers: [RegExp, string][] = [
    [/capital of France/, 'Paris.'],
    [/population of that city/, 'About 2.1 million people.'],
    [/famous landmark/, 'The Eiffel Tower.'],
    [/largest planet/, 'Jupiter.'],
    [/How many moons/, 'It has 79 moons.'],
    [/Guido van Rossum/, 'Python.'],
    [/what year was it first released/, 'It was released in 1991.'],
    [/chemical symbol for water/, 'H2O.'],
    [/hydrogen atoms/, 'There are 2 hydrogen atoms.'],
  ];
  return answers.find(([pattern]) => pattern.test(question))?.[1] ?? 'I am not sure.';
};

/** Basic strategy, simplified: hit below 17, stand from 17. */
const blackjackPlayer: Responder = ({ text }) => {
  const value = Number([...text.matchAll(/Your hand: \[[^\]]*\] = (\d+)/g)].at(-1)![1]);
  return value < 17 ? `${value} is low, so I hit.\n<action>hit</action>` : `${value} is enough, so I stand.\n<action>stand</action>`;
};

/** One get_weather call for the city the user names. Wrong on purpose: London without its city, Tokyo as Kyoto. */
const forecastUser: Responder = ({ text }) => {
  const { question, toolAnswers } = lastQuestion(text);
  if (toolAnswers.length > 0) return 'Here is the forecast.';
  const city = /(?:in|for) ((?:[A-Z][a-z]+ ?)+)/.exec(question)![1]!.trim();
  if (city === 'London') return callOf('get_weather', {});
  return callOf('get_weather', { city: city === 'Tokyo' ? 'Kyoto' : city });
};

/** Looks up the synonyms of the term the query is about, then reports their values in order. Wrong on purpose: the heat-island query, reversed. */
const synonymUser: Responder = ({ text }) => {
  const { question, toolAnswers } = lastQuestion(text);
  const term = /hot|heat|warm|temperature/i.test(question) ? 'Hot' : 'Cold';
  const synonyms = [...systemText(text).matchAll(/The term '([^']+)' has a synonym '([^']+)'/g)].filter((match) => match[1] === term).map((match) => match[2]!);
  if (toolAnswers.length === 0) return synonyms.map((synonym) => callOf('get_synonym_value', { synonym })).join('\n');
  if (toolAnswers.length === synonyms.length) {
    const values = toolAnswers.map((answer) => (JSON.parse(answer) as { synonym_value: number }).synonym_value);
    return callOf('extract_synonym_values', { synonym_values: /heat islands/.test(question) ? values.reverse() : values });
  }
  return 'Done: the values are extracted.';
};

// ---------------------------------------------------------------------------------------------
// A structural "shape of" a JSON value, to compare gymnast's rows with NeMo Gym's.

type Shape = string | Shape[] | { [key: string]: Shape };

/** The JSON type of a value, recursively: arrays as the distinct shapes of their items. */
function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const distinct = new Map(value.map((item) => [JSON.stringify(shapeOf(item)), shapeOf(item)]));
    return [...distinct.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, shape]) => shape);
  }
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]),
    );
  return typeof value;
}

/** A Responses output item as a type tag: its type, role, and content part types. */
function itemKind(item: Row): string {
  const parts = Array.isArray(item.content) ? `[${[...new Set(item.content.map((part: Row) => part.type))].join(',')}]` : typeof item.content;
  return [item.type, item.role ?? '', item.type === 'message' ? parts : ''].join(' ');
}

// ---------------------------------------------------------------------------------------------

interface Collected {
  results: Row[];
  failures: Row[];
  planned: Row[];
  aggregates: Row[];
}

interface Example {
  name: string;
  respond: Responder;
  protocol: 'resources' | 'gymnasium';
  /** The agent rows without agent_ref run as (`--agent`); rows naming one keep theirs. */
  agent: string;
  server?: () => { start(): Promise<string>; close(): Promise<void> };
}

/** A deterministic random source per blackjack episode, so the games dealt are the same every run. */
function seededRandoms(): () => () => number {
  let episode = 0;
  return () => {
    let state = 0x9e3779b9 ^ (episode += 1);
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  };
}

const examples: Example[] = [
  { name: 'example_single_tool_call', respond: weatherUser, protocol: 'resources', agent: 'example_single_tool_call_simple_agent' },
  { name: 'example_session_state_mgmt', respond: counterUser, protocol: 'resources', agent: 'example_session_state_mgmt_simple_agent' },
  { name: 'string_match', respond: quizUser, protocol: 'resources', agent: 'string_match_simple_agent' },
  { name: 'mcqa', respond: mcqaUser, protocol: 'resources', agent: 'mcqa_simple_agent' },
  { name: 'example_multi_turn_gymnasium', respond: conversationUser, protocol: 'gymnasium', agent: 'example_multi_turn_gymnasium_agent' },
  {
    name: 'blackjack',
    respond: blackjackPlayer,
    protocol: 'gymnasium',
    agent: 'blackjack_gymnasium_agent',
    server: () => blackjack({ newRandom: seededRandoms() }).createServer({ port: 0 }),
  },
  { name: 'example_tool_call_multireward', respond: forecastUser, protocol: 'resources', agent: 'example_tool_call_multireward_simple_agent' },
  { name: 'example_multi_step', respond: synonymUser, protocol: 'resources', agent: 'example_multi_step_simple_agent' },
];

/** Starts the example's ported server and a model playing it, and collects its example.jsonl with a few repeats. */
async function collectExample(example: Example): Promise<Collected> {
  const [model] = await startServers(1, { respond: example.respond });
  const server = example.server?.() ?? exampleServers[example.name]!.create().createServer({ port: 0 });
  const url = await server.start();
  try {
    const dir = mkdtempSync(join(tmpdir(), `gymnast-${example.name}-`));
    const output = join(dir, 'rollouts.jsonl');
    const serverFlag = example.protocol === 'gymnasium' ? '--gymnasium-server' : '--resources-server';
    await run(
      process.execPath,
      [
        bin,
        'collect',
        '--input',
        fixturePath(`${example.name}/example.jsonl`),
        '--output',
        output,
        '--agent',
        example.agent,
        '--policy',
        'vllm-completions',
        '--base-url',
        model!.url,
        '--tokenizer',
        qwen3Directory,
        serverFlag,
        `${example.agent}=${url}`,
        '--num-repeats',
        String(REPEATS),
        '--max-tokens',
        '128',
        '--max-turns',
        '8',
        '--max-seq-len',
        '8192',
        '--seed',
        '1',
        '--concurrency',
        '4',
      ],
      { timeout: 60_000 },
    );
    return {
      results: readJsonl(output),
      failures: readJsonl(output.replace('.jsonl', '_failures.jsonl')),
      planned: readJsonl(output.replace('.jsonl', '_materialized_inputs.jsonl')),
      aggregates: JSON.parse(readFileSync(output.replace('.jsonl', '_aggregate_metrics.json'), 'utf8')) as Row[],
    };
  } finally {
    await Promise.all([server.close(), model!.close()]);
  }
}

const key = (row: Row) => `${row._ng_task_index}/${row._ng_rollout_index}`;
const byTask = (rows: Row[]) => [...rows].sort((a, b) => a._ng_task_index - b._ng_task_index || a._ng_rollout_index - b._ng_rollout_index);
/** One value per task (the repeats must agree, the player being deterministic), in task order. */
function perTask<T>(rows: Row[], of: (row: Row) => T): T[] {
  const values = new Map<number, T[]>();
  for (const row of byTask(rows)) values.set(row._ng_task_index, [...(values.get(row._ng_task_index) ?? []), of(row)]);
  return [...values.values()].map((repeats) => {
    for (const value of repeats) assert.deepEqual(value, repeats[0], 'the repeats of a task earn the same');
    return repeats[0]!;
  });
}
const toolMessages = (row: Row) => (row.messages as Message[]).filter((message) => message.role === 'tool');
const calls = (row: Row) => (row.messages as Message[]).flatMap((message) => message.tool_calls ?? []);

describe('gymnast collect on each NeMo Gym example: its example.jsonl end to end against its ported server, on the test model', () => {
  const collected = new Map<string, Collected>();
  before(async () => {
    // Two at a time: each collect is one CLI process, and CI has two cores.
    const queue = [...examples];
    await Promise.all(
      [0, 1].map(async () => {
        for (let example = queue.shift(); example; example = queue.shift()) collected.set(example.name, await collectExample(example));
      }),
    );
  });
  after(() => collected.clear());

  const of = (name: string) => collected.get(name)!;

  it('ends every planned rollout of every example as exactly one row, with the exact tokens, and asks each server for the aggregate', () => {
    for (const example of examples) {
      const { results, failures, planned, aggregates } = of(example.name);
      assert.deepEqual(failures, [], `${example.name}: no failures`);
      assert.equal(planned.length, 5 * REPEATS, `${example.name}: five rows, ${REPEATS} repeats each`);
      assert.deepEqual(results.map(key).sort(), planned.map(key).sort(), `${example.name}: one row per planned key`);
      for (const [i, row] of results.entries()) {
        assert.equal(row.agent_ref.name, example.agent);
        assert.deepEqual([row.has_training_tokens, row.token_drift_count], [true, 0], `${example.name}: training tokens, no drift`);
        // As gymnast's readers read the row: the ids it stores once, on response.output, back on the messages.
        const messages = readFullRow(row, `${example.name}:${i + 1}`).row.messages as Message[];
        const assistant = messages.filter((message) => message.role === 'assistant');
        assert.ok(assistant.length > 0);
        for (const message of assistant) {
          assert.ok(message.token_ids!.length > 0, `${example.name}: sampled ids`);
          assert.equal(message.generation_logprobs!.length, message.token_ids!.length, `${example.name}: a logprob per sampled id`);
        }
        assert.ok(Array.isArray(row.response.output) && row.response.output.length > 0, `${example.name}: a Responses output`);
      }
      const [aggregate] = aggregates.filter((candidate) => candidate.agent_ref.name === example.agent);
      assert.equal(aggregate?.computed_by, 'server', `${example.name}: the server's /aggregate_metrics`);
      const meanReward = results.reduce((sum, row) => sum + row.reward, 0) / results.length;
      assert.ok(Math.abs(aggregate.key_metrics['mean/reward'] - meanReward) < 1e-9, `${example.name}: over these rows' rewards`);
    }
  });

  it('example_single_tool_call: get_weather for each city named, answered under its call id; asks back when none is; reward 1 always', () => {
    const { results } = of('example_single_tool_call');
    assert.deepEqual(
      perTask(results, (row) => row.reward),
      [1, 1, 1, 1, 1],
    );
    assert.deepEqual(
      perTask(results, (row) => calls(row).map((call) => JSON.parse(call.function.arguments).city)),
      [['San Francisco'], ['San Francisco'], ['San Francisco'], [], ['New York', 'Chicago', 'Seattle']],
    );
    for (const row of results) {
      assert.deepEqual(
        toolMessages(row).map((message) => message.tool_call_id),
        calls(row).map((call) => call.id),
        'each call answered under its id',
      );
      for (const [index, message] of toolMessages(row).entries()) {
        const { city } = JSON.parse(calls(row)[index]!.function.arguments) as { city: string };
        assert.deepEqual(JSON.parse(message.content), { city, weather_description: `The weather in ${city} is cold.` });
      }
      const output = row.response.output as Row[];
      assert.deepEqual(
        output.filter((item) => item.type === 'function_call_output').map((item) => item.call_id),
        output.filter((item) => item.type === 'function_call').map((item) => item.call_id),
      );
    }
  });

  it('example_session_state_mgmt: the counter kept per session from seed to verify; the wrong increment scores 0', () => {
    const { results } = of('example_session_state_mgmt');
    assert.deepEqual(
      perTask(results, (row) => [row.expected_count, row.reward]),
      [
        [6, 1],
        [15, 1],
        [24, 0],
        [33, 1],
        [42, 1],
      ],
    );
    for (const row of results) {
      assert.deepEqual(
        toolMessages(row).map((message) => message.tool_call_id),
        calls(row).map((call) => call.id),
      );
      assert.deepEqual(
        toolMessages(row).map((message) => JSON.parse(message.content)),
        [{ success: true }, { success: true }, { count: row.expected_count + (row.expected_count === 24 ? 1 : 0) }],
      );
    }
  });

  it('string_match: the answer extracted per the row’s mode, at the top level with the expected one; the wrong one scores 0', () => {
    const { results } = of('string_match');
    assert.deepEqual(
      perTask(results, (row) => [row.extraction_mode, row.extracted_answer, row.expected_answer, row.reward]),
      [
        ['boxed', 'Paris', 'Paris', 1],
        ['boxed', '80', '80', 1],
        ['final_answer', 'Jupiter', 'Saturn', 0],
        ['final_answer', '15', '15', 1],
        ['last_line', 'Pacific Ocean', 'Pacific Ocean', 1],
      ],
    );
  });

  it('mcqa: the boxed letter graded against the options; the wrong one scores 0', () => {
    const { results } = of('mcqa');
    assert.deepEqual(
      perTask(results, (row) => [row.extracted_answer, row.expected_answer, row.reward]),
      [
        ['B', 'B', 1],
        ['C', 'C', 1],
        ['C', 'I', 0],
        ['E', 'E', 1],
        ['E', 'E', 1],
      ],
    );
  });

  it('example_multi_turn_gymnasium: each follow-up a user turn, the last reply checked for the expected answer', () => {
    const { results } = of('example_multi_turn_gymnasium');
    assert.deepEqual(
      perTask(results, (row) => [row.expected_answer, row.reward, row.terminated, row.truncated]),
      [
        ['Eiffel', 1, true, false],
        ['20', 1, true, false],
        ['95', 0, true, false],
        ['1991', 1, true, false],
        ['2', 1, true, false],
      ],
    );
    for (const row of results) {
      const messages = row.messages as Message[];
      assert.deepEqual(
        messages
          .filter((message) => message.role === 'user')
          .slice(1)
          .map((message) => message.content),
        row.follow_ups,
      );
      assert.equal(messages.filter((message) => message.role === 'assistant').length, row.follow_ups.length + 1);
      assert.deepEqual(row.info, {});
    }
  });

  it('blackjack: the player hits below 17 and stands from 17, and each game scores as its hands say', () => {
    const { results } = of('blackjack');
    assert.deepEqual([...new Set(results.map((row) => row.info.result))].sort(), ['bust', 'draw', 'loss', 'win'], 'the seeded deals reach every ending');
    for (const row of results) {
      const messages = row.messages as Message[];
      for (const [index, message] of messages.entries()) {
        if (message.role !== 'assistant') continue;
        const shown = Number(/Your hand: \[[^\]]*\] = (\d+)/.exec(messages[index - 1]!.content)![1]);
        assert.match(message.content, shown < 17 ? /<action>hit<\/action>$/ : /<action>stand<\/action>$/);
      }
      const info = row.info as { result: string; value?: number; player_value?: number; dealer_value?: number };
      if (info.result === 'bust') {
        assert.deepEqual([row.reward, info.value! > 21], [-1, true]);
      } else {
        assert.ok(info.player_value! >= 17 && info.player_value! <= 21, 'stood from 17');
        const expected =
          info.dealer_value! > 21 || info.player_value! > info.dealer_value!
            ? [1, 'win']
            : info.player_value === info.dealer_value
              ? [0, 'draw']
              : [-1, 'loss'];
        assert.deepEqual([row.reward, info.result], expected);
      }
      assert.deepEqual([row.terminated, row.truncated], [true, false]);
    }
  });

  it('example_tool_call_multireward: reward_components sum to the reward and are top-level fields; the wrong calls lose their components', () => {
    const { results } = of('example_tool_call_multireward');
    assert.deepEqual(
      perTask(results, (row) => [row.predicted_calls, row.reward_components, row.reward]),
      [
        [[{ name: 'get_weather', arguments: { city: 'San Francisco' } }], { correctness: 1, schema_valid: 1, format: 0 }, 2],
        [[{ name: 'get_weather', arguments: { city: 'New York' } }], { correctness: 1, schema_valid: 1, format: 0 }, 2],
        [[{ name: 'get_weather', arguments: { city: 'Seattle' } }], { correctness: 1, schema_valid: 1, format: 0 }, 2],
        [[{ name: 'get_weather', arguments: {} }], { correctness: 0, schema_valid: 0, format: 0 }, 0],
        [[{ name: 'get_weather', arguments: { city: 'Kyoto' } }], { correctness: 0, schema_valid: 1, format: 0 }, 1],
      ],
    );
    for (const row of results) {
      const components = row.reward_components as Record<string, number>;
      assert.equal(
        Object.values(components).reduce((sum, value) => sum + value, 0),
        row.reward,
      );
      assert.deepEqual([row.correctness, row.schema_valid, row.format], [components.correctness, components.schema_valid, components.format]);
      const [answer] = toolMessages(row);
      assert.equal(answer!.tool_call_id, calls(row)[0]!.id, 'the call answered under its id');
      assert.match(
        answer!.content,
        row.predicted_calls[0].arguments.city ? /is sunny/ : /"detail"/,
        'the weather, or the 422 the tool answered the call without a city',
      );
    }
  });

  it('example_multi_step: lookups, then the values reported in order; the reversed report scores 0 as an ordering failure', () => {
    const { results } = of('example_multi_step');
    assert.deepEqual(
      perTask(results, (row) => [
        row.parsed_synonym_values,
        row.reward,
        row.accuracy,
        row.set_overlap,
        row.order_instruction_following_failure,
        row.original_term_minefield_hit,
      ]),
      [
        [[711, 407], 1, true, 1, false, false],
        [[711, 407], 1, true, 1, false, false],
        [[711, 407], 1, true, 1, false, false],
        [[711, 407], 1, true, 1, false, false],
        [[407, 711], 0, false, 1, true, false],
      ],
    );
    for (const row of results) {
      assert.deepEqual(
        calls(row)
          .map((call) => [call.function.name, JSON.parse(call.function.arguments)])
          .slice(0, 2),
        [
          ['get_synonym_value', { synonym: 'Blazing' }],
          ['get_synonym_value', { synonym: 'Warm' }],
        ],
      );
      assert.deepEqual(
        toolMessages(row).map((message) => message.tool_call_id),
        calls(row).map((call) => call.id),
      );
      assert.deepEqual(
        toolMessages(row).map((message) => JSON.parse(message.content)),
        [{ synonym_value: 711 }, { synonym_value: 407 }, { success: true }],
      );
    }
  });

  describe('the rows have NeMo Gym’s schema: blackjack and example_multi_turn_gymnasium against its example_rollouts.jsonl', () => {
    /**
     * gymnast's own fields beside NeMo Gym's (`EpisodeFields` and the row base of src/core/result-row.ts):
     * the exact-token record, the episode's account of itself, the sampling used, and the row's version.
     */
    const gymnastExtras = new Set([
      'messages',
      'turns',
      'has_training_tokens',
      'token_drift_count',
      'num_turns',
      'termination',
      'env_metadata',
      'terminal_env_metadata',
      'sampling',
      'duration_ms',
      'started_at',
      'schema_version',
    ]);

    for (const [name, [low, high], taskFields] of [
      ['blackjack', [-1, 1], []],
      ['example_multi_turn_gymnasium', [0, 1], ['follow_ups', 'expected_answer']],
    ] as const) {
      it(`${name}: NeMo Gym's keys, output items, usage and info of the same JSON types; rewards in ${low}..${high}`, () => {
        const theirs = readJsonl(fixturePath(`${name}/example_rollouts.jsonl`));
        const ours = of(name).results;
        const theirKeys = new Set(theirs.flatMap((row) => Object.keys(row)));
        for (const row of ours) {
          assert.deepEqual(
            [...theirKeys].filter((field) => !(field in row)),
            [],
            'every key of NeMo Gym’s rows',
          );
          assert.deepEqual(
            Object.keys(row).filter((field) => !theirKeys.has(field) && !gymnastExtras.has(field) && !(taskFields as readonly string[]).includes(field)),
            [],
            'no key beyond the allowed extras',
          );
          for (const field of theirKeys) {
            // responses_create_params is the row's own request echoed; NeMo Gym writes the validated request whole (OpenAI's
            // unset fields as null) and, for blackjack, with the dealt hand appended to input. response and info follow.
            if (field === 'response' || field === 'info' || field === 'responses_create_params') continue;
            assert.deepEqual(shapeOf(row[field]), shapeOf(theirs[0]![field]), `${field} of the same type`);
          }
          assert.ok(row.reward >= low && row.reward <= high, `reward ${row.reward} in ${low}..${high}`);
        }
        for (const row of theirs) assert.ok(row.reward >= low && row.reward <= high, 'NeMo Gym’s too');

        // response: gymnast writes output and usage of NeMo Gym's Responses object (not its id, model, echo of the request…);
        // the output items' kinds (type, role, content part types), each kind's shape, and usage.
        for (const row of ours) assert.deepEqual(Object.keys(row.response).sort(), ['output', 'usage']);
        const kinds = (rows: Row[]) => new Set(rows.flatMap((row) => (row.response.output as Row[]).map(itemKind)));
        assert.deepEqual([...kinds(ours)].sort(), [...kinds(theirs)].sort());
        // NeMo Gym's examples were collected without token ids; gymnast's model items are its `…ForTraining` variants, those plus three fields.
        const itemShapes = (rows: Row[]) =>
          new Map(rows.flatMap((row) => (row.response.output as Row[]).map((item) => [itemKind(item), shapeOf(withoutNulls(withoutTrainingTokens(item)))])));
        for (const [kind, shape] of itemShapes(theirs)) assert.deepEqual(itemShapes(ours).get(kind), shape, `output item ${kind}`);
        for (const row of ours) assert.deepEqual(shapeOf(row.response.usage), shapeOf(theirs[0]!.response.usage), 'usage');

        // Where the model's part begins: NeMo Gym appends what the reset showed to the request's input, so
        // the output starts with the model's first turn, and the input ends with the observation.
        const opening = (row: Row) => itemKind((row.response.output as Row[])[0]!);
        const inputLength = (row: Row) => ((row.responses_create_params as Row).input as unknown[]).length;
        assert.deepEqual(new Set(ours.map(opening)), new Set(theirs.map(opening)), 'the output opens as NeMo Gym’s does');
        assert.deepEqual(new Set(ours.map(inputLength)), new Set(theirs.map(inputLength)), 'the reset’s observation is in the input, as NeMo Gym puts it');

        // info: each of ours has the shape of one of theirs (blackjack's differ by how the game ended).
        const infoShapes = new Set(theirs.map((row) => JSON.stringify(shapeOf(row.info))));
        for (const row of ours)
          assert.ok(
            infoShapes.has(JSON.stringify(shapeOf(row.info))),
            `info ${JSON.stringify(row.info)} has a shape of NeMo Gym's: ${[...infoShapes].join(' or ')}`,
          );
      });
    }
  });
});

/** An output item without NeMo Gym's training fields. */
function withoutTrainingTokens(item: Row): Row {
  const { prompt_token_ids: _prompt, generation_token_ids: _generation, generation_log_probs: _logprobs, ...rest } = item;
  return rest;
}

/** A value without its null fields, at any depth (NeMo Gym's items carry OpenAI's unset fields as null; gymnast leaves them out). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== null)
      .map(([name, field]) => [name, withoutNulls(field)]),
  );
}
