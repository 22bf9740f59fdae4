import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { blackjack, BLACKJACK_RANKS, type BlackjackRank } from '../../src/servers/resources/examples/blackjack.js';
import { exampleServers } from '../../src/servers/resources/examples/example-servers.js';
import type { ResourcesServerDefinition } from '../../src/servers/resources/resources-server-definition.js';
import { withServer } from '../support/with-server.js';

/**
 * Every port replays every row NeMo Gym stored for its server (the rollouts hold the real server's
 * tool answers, observations and verdicts) over loopback HTTP, as NeMo Gym's agents drive it, and
 * must answer as the real server did, call for call.
 */

// biome-ignore lint/suspicious/noExplicitAny: rows of NeMo Gym's files, read field by field as each spec needs
type Row = Record<string, any>;
const fixtures = new URL('../fixtures/nemo-gym/', import.meta.url);
const read = (server: string, file: string): Row[] =>
  readFileSync(new URL(`${server}/${file}`, fixtures), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row);
const lastPrompt = (row: Row) => JSON.stringify(row.responses_create_params.input.at(-1).content);
/** The dataset row a rollout came from: its prompt, or (gymnasium rows grow the reset observation) its task index. */
const sourceRow = (rows: Row[], rollout: Row) => rows.find((row) => lastPrompt(row) === lastPrompt(rollout)) ?? rows[rollout._ng_task_index]!;

// NeMo Gym's mcqa has read `\boxed{C: …}` as C since c59e3cc2c ("fix(mcqa): boxed answer extraction",
// #1844); this rollout was stored before it, scored 0 with nothing extracted.
const RESCORED: Readonly<Record<string, Row>> = { 'mcqa/example_rollouts.jsonl:3': { reward: 1, extracted_answer: 'C' } };
/** What NeMo Gym's collector adds around the verify reply, and the echoes its pydantic models rewrite. */
const NOT_VERIFIED = new Set(['response', 'responses_create_params', 'agent_ref', '_ng_task_index', '_ng_rollout_index']);

interface Call {
  path: string;
  body: Row;
  /** What the real server answered, as stored. */
  expected: Row;
  /** For /verify: the reply may echo what was sent, but add only what the real server added. */
  verified?: boolean;
}

interface Replay {
  label: string;
  definition: () => ResourcesServerDefinition;
  calls: Call[];
}

/** A simple_agent rollout: /seed_session with the row, each tool call as stored, then /verify. */
function toolReplays(server: string, rowsFile = 'example.jsonl', rolloutsFile = 'example_rollouts.jsonl'): Replay[] {
  const rows = read(server, rowsFile);
  return read(server, rolloutsFile).map((rollout, index) => {
    const label = `${server}/${rolloutsFile}:${index + 1}`;
    const row = sourceRow(rows, rollout);
    const output: Row[] = rollout.response.output;
    const toolCalls = output
      .filter((item) => item.type === 'function_call')
      .map((item) => {
        const answer = output.find((entry) => entry.type === 'function_call_output' && entry.call_id === item.call_id)!;
        return { path: `/${item.name}`, body: JSON.parse(item.arguments), expected: JSON.parse(answer.output) };
      });
    const verdict = Object.fromEntries(Object.entries(rollout).filter(([key]) => !NOT_VERIFIED.has(key)));
    return {
      label,
      definition: exampleServers[server]!.create,
      calls: [
        { path: '/seed_session', body: row, expected: {} },
        ...toolCalls,
        { path: '/verify', body: { ...row, response: rollout.response }, expected: { ...verdict, ...RESCORED[label] }, verified: true },
      ],
    };
  });
}

/** A gymnasium_agent rollout: /reset, then one /step per assistant turn, each stored observation in turn. */
function stepReplays(
  server: string,
  firstObservation: (rollout: Row) => string | null,
  definition: (rollout: Row) => () => ResourcesServerDefinition,
): Replay[] {
  const rows = read(server, 'example.jsonl');
  return read(server, 'example_rollouts.jsonl').map((rollout, index) => {
    const row = sourceRow(rows, rollout);
    const output: Row[] = rollout.response.output;
    const turns = output.flatMap((item, at) => (item.role === 'assistant' ? [at] : []));
    const steps = turns.map((at, turn) => ({
      path: '/step',
      body: { ...row, response: { id: `resp_${turn}`, object: 'response', output: [output[at]] } },
      expected:
        turn === turns.length - 1
          ? { observation: null, reward: rollout.reward, terminated: rollout.terminated, truncated: rollout.truncated, info: rollout.info }
          : { observation: output[at + 1]!.content, reward: 0, terminated: false, truncated: false, info: {} },
    }));
    return {
      label: `${server}/example_rollouts.jsonl:${index + 1}`,
      definition: definition(rollout),
      calls: [{ path: '/reset', body: row, expected: { observation: firstObservation(rollout), info: {} } }, ...steps],
    };
  });
}

/** NeMo Gym deals from an unseeded `random.Random`; the stored hands say which cards came, in dealing order. */
function dealtAsStored(rollout: Row): () => ResourcesServerDefinition {
  const hand = (text: string) => text.slice(1, -1).split(', ') as BlackjackRank[];
  const player = hand(rollout.info.player);
  const shown = lastPrompt(rollout).match(/Dealer shows: (\w+)/)![1] as BlackjackRank;
  // A bust never turns the dealer's second card; any card serves.
  const dealer = rollout.info.dealer ? hand(rollout.info.dealer) : [shown, '2' as const];
  const deck = [player[0]!, player[1]!, dealer[0]!, dealer[1]!, ...player.slice(2), ...dealer.slice(2)];
  return () => {
    const values = deck.map((rank) => (BLACKJACK_RANKS.indexOf(rank) + 0.5) / BLACKJACK_RANKS.length);
    return blackjack({ newRandom: () => () => values.shift() ?? assert.fail('the stored game dealt no more cards') });
  };
}

/** What the port answered otherwise than the real server: the call and how, else undefined. */
function differences(call: Call, status: number, answer: Row): string | undefined {
  if (status !== 200) return `HTTP ${status} ${JSON.stringify(answer)}`;
  if (!call.verified) return isDeepStrictEqual(answer, call.expected) ? undefined : `${JSON.stringify(answer)}, NeMo Gym ${JSON.stringify(call.expected)}`;
  const wrong = Object.entries(call.expected)
    .filter(([key, value]) => !isDeepStrictEqual(answer[key], value))
    .map(([key, value]) => `${key} ${JSON.stringify(answer[key])}, NeMo Gym ${JSON.stringify(value)}`);
  const added = Object.keys(answer)
    .filter((key) => !(key in call.body) && !(key in call.expected))
    .map((key) => `reports ${key}=${JSON.stringify(answer[key])}, which NeMo Gym does not`);
  return [...wrong, ...added].join('; ') || undefined;
}

/** The calls where the port answered otherwise than the real server, one line each. */
async function disagreements(replay: Replay): Promise<string[]> {
  const found: string[] = [];
  await withServer(replay.definition().createServer(), async (url) => {
    let cookie: string | undefined;
    for (const call of replay.calls) {
      const response = await fetch(`${url}${call.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
        body: JSON.stringify(call.body),
      });
      cookie ??= response.headers.get('set-cookie')?.split(';')[0];
      const difference = differences(call, response.status, (await response.json()) as Row);
      if (difference !== undefined) found.push(`${replay.label} ${call.path}: ${difference}`);
    }
  });
  return found;
}

const ports: Readonly<Record<string, () => Replay[]>> = {
  mcqa: () => [...toolReplays('mcqa'), ...toolReplays('mcqa', 'example_with_template_metadata.jsonl', 'example_rollouts_with_template_metadata.jsonl')],
  string_match: () => toolReplays('string_match'),
  example_single_tool_call: () => toolReplays('example_single_tool_call'),
  example_session_state_mgmt: () => toolReplays('example_session_state_mgmt'),
  example_tool_call_multireward: () => toolReplays('example_tool_call_multireward'),
  example_multi_step: () => toolReplays('example_multi_step'),
  // The stored prompt ends with what /reset answered.
  blackjack: () => stepReplays('blackjack', (rollout) => rollout.responses_create_params.input.at(-1).content, dealtAsStored),
  example_multi_turn_gymnasium: () =>
    stepReplays(
      'example_multi_turn_gymnasium',
      () => null,
      () => exampleServers.example_multi_turn_gymnasium!.create,
    ),
};

describe('each ported NeMo Gym server answers every stored row as the real server did', () => {
  it('covers all eight ports', () => assert.deepEqual(Object.keys(ports).sort(), Object.keys(exampleServers).sort()));

  for (const [server, replays] of Object.entries(ports)) {
    it(`${server}: every tool answer, observation and verdict of its stored rollouts`, async () => {
      const all = replays();
      assert.ok(all.length >= 5 && all.every((replay) => replay.calls.length >= 2), 'every stored rollout is replayed');
      const found = (await Promise.all(all.map(disagreements))).flat();
      assert.deepEqual(found, [], `${found.length} of ${all.reduce((sum, replay) => sum + replay.calls.length, 0)} calls disagree`);
    });
  }
});
