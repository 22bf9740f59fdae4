import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { blackjack, BLACKJACK_RANKS, handValue, type BlackjackRank } from '../../src/servers/resources/examples/blackjack.js';
import { exampleServers } from '../../src/servers/resources/examples/example-servers.js';
import { gradeStringMatch } from '../../src/servers/resources/examples/string-match-grade.js';
import { withServer } from '../support/with-server.js';

// biome-ignore lint/suspicious/noExplicitAny: rows of NeMo Gym's files, read field by field as each spec needs
type Row = Record<string, any>;
const fixtures = new URL('../fixtures/nemo-gym/', import.meta.url);
const read = (server: string, file: string): Row[] =>
  readFileSync(new URL(`${server}/${file}`, fixtures), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Row);
const rowsOf = (server: string) => read(server, 'example.jsonl');
const says = (text: string) => ({
  id: 'resp_1',
  object: 'response',
  output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
});
const calls = (...items: { name: string; arguments: string }[]) => ({
  id: 'resp_1',
  object: 'response',
  output: items.map((item, index) => ({ type: 'function_call', call_id: `call_${index}`, ...item })),
});
const toolsOf = (row: Row) => row.responses_create_params.tools ?? [];

/** A NeMo Gym agent's view of a server: the cookie from its first call goes on every later one. */
function agent(url: string) {
  let cookie: string | undefined;
  return async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
    cookie ??= response.headers.get('set-cookie')?.split(';')[0];
    assert.equal(response.status, 200, `${path} answers 200`);
    return (await response.json()) as Row;
  };
}

const serve = (name: string, run: (url: string) => Promise<void>) => withServer(exampleServers[name]!.create().createServer(), run);

/** Verifies one response on a fresh session, as a collector would after the rollout. */
async function verify(url: string, row: Row, response: unknown): Promise<Row> {
  const call = agent(url);
  await call('/seed_session', row);
  return call('/verify', { ...row, response });
}

describe('string_match, on its example.jsonl rows', () => {
  it('has no tools, as its rows have none', () => {
    assert.deepEqual(exampleServers.string_match!.create().tools, []);
    for (const row of rowsOf('string_match')) assert.deepEqual(toolsOf(row), []);
  });

  it('each extraction mode finds the answer where its row asks for it; a wrong answer scores 0', async () => {
    const written = (mode: string, answer: string) =>
      ({
        boxed: `Working it out.\nSo it is \\boxed{${answer}}.`,
        final_answer: `Working it out.\nFinal answer: ${answer}.`,
        last_line: `Working it out.\n\n${answer}\n`,
      })[mode]!;
    await serve('string_match', async (url) => {
      for (const row of rowsOf('string_match')) {
        const right = await verify(url, row, says(written(row.extraction_mode, row.expected_answer.toUpperCase())));
        assert.equal(right.reward, 1, `${row.extraction_mode}: ${row.expected_answer}`);
        assert.equal(right.extracted_answer, row.expected_answer.toUpperCase());
        assert.equal(right.extraction_mode, row.extraction_mode, 'the reply echoes the row');
        assert.equal((await verify(url, row, says(written(row.extraction_mode, 'Atlantis')))).reward, 0);
      }
    });
  });

  it('nothing to extract scores 0 with extracted_answer null; case_sensitive compares exactly; full_response takes it all', async () => {
    const [boxedRow] = rowsOf('string_match');
    await serve('string_match', async (url) => {
      const none = await verify(url, boxedRow!, says('Paris, no box'));
      assert.deepEqual([none.reward, none.extracted_answer], [0, null]);
      assert.equal((await verify(url, { ...boxedRow, case_sensitive: true }, says('\\boxed{paris}'))).reward, 0);
      assert.equal((await verify(url, { ...boxedRow, case_sensitive: true }, says('\\boxed{Paris}'))).reward, 1);
      const full = await verify(url, { ...boxedRow, extraction_mode: 'full_response' }, says('  "Paris!"  '));
      assert.deepEqual([full.reward, full.extracted_answer], [1, '"Paris!"']);
      const defaulted = await verify(url, { responses_create_params: { input: 'q' }, expected_answer: 'Paris' }, says('The answer: \\boxed{Paris}'));
      assert.equal(defaulted.extracted_answer, '\\boxed{Paris}', 'the mode defaults to final_answer (after "answer:"), as in NeMo Gym');
      assert.equal(defaulted.extraction_mode, undefined, "a default is not reported back: NeMo Gym's reply does not carry it");
    });
  });

  it("grades with NeMo Gym's normalisations", () => {
    const cases: [string, string, number][] = [
      ['oven', 'oven', 1],
      ['oven', 'Oven', 1],
      ['oven', '  oven  ', 1],
      ['oven', 'stove', 0],
      ['1000', '1,000', 1],
      ['80', '80.0', 1],
      ['80', '\\text{80}', 1],
      ['12%', '12\\%', 1],
      ['new york', 'NY', 1],
      ['apples, pears', 'apples pears', 1],
      ['100', '99.5', 0.98],
      ['100', '90', 0],
      ['90°', '90', 0.98] /* units go only in the soft numeric grade, capped as NeMo Gym does */,
      ['Paris', "'Paris'", 1],
    ];
    for (const [expected, predicted, grade] of cases) assert.equal(gradeStringMatch(expected, predicted), grade, `${expected} vs ${predicted}`);
  });
});

describe('mcqa, on its example.jsonl rows', () => {
  it('has no tools, as its rows have none', () => {
    assert.deepEqual(exampleServers.mcqa!.create().tools, []);
    for (const row of rowsOf('mcqa')) assert.deepEqual(toolsOf(row), []);
  });

  it('strict boxed letters: the right letter scores 1, another letter 0, a letter outside the options extracts nothing', async () => {
    await serve('mcqa', async (url) => {
      for (const row of rowsOf('mcqa')) {
        const wrong = row.expected_answer === 'A' ? 'B' : 'A';
        assert.equal((await verify(url, row, says(`Thinking.\n\\boxed{${row.expected_answer}}`))).reward, 1);
        const other = await verify(url, row, says(`\\boxed{ (${wrong}) }`));
        assert.deepEqual([other.reward, other.extracted_answer], [0, wrong]);
        assert.equal((await verify(url, row, says('\\boxed{Z}'))).extracted_answer, null);
      }
    });
  });

  it("lenient modes: an option's text in the box, or after Answer:", async () => {
    const row = rowsOf('mcqa')[0]!;
    const text = (letter: string) => Object.values(row.options.find((option: Row) => letter in option))[0] as string;
    await serve('mcqa', async (url) => {
      const boxed = await verify(url, { ...row, grading_mode: 'lenient_boxed' }, says(`\\boxed{\\text{${text('B')}}}`));
      assert.deepEqual([boxed.reward, boxed.extracted_answer], [1, 'B']);
      assert.equal((await verify(url, row, says(`\\boxed{${text('B')}}`))).extracted_answer, null, 'strict mode reads only letters');
      const colon = await verify(url, { ...row, grading_mode: 'lenient_answer_colon' }, says(`answer: ${text('B').toUpperCase()}`));
      assert.deepEqual([colon.reward, colon.extracted_answer], [1, 'B']);
      assert.equal((await verify(url, { ...row, grading_mode: 'lenient_answer_colon' }, says('Answer: b'))).extracted_answer, 'B');
    });
  });
});

describe('example_multi_turn_gymnasium, on its example.jsonl rows', () => {
  it('a scripted episode per row: the answer in the last reply scores 1, without it 0, and the session is closed after', async () => {
    await serve('example_multi_turn_gymnasium', async (url) => {
      for (const row of rowsOf('example_multi_turn_gymnasium')) {
        for (const [last, reward] of [
          [`It is ${row.expected_answer.toUpperCase()}.`, 1],
          ['I do not know.', 0],
        ] as const) {
          const call = agent(url);
          await call('/reset', row);
          for (const followUp of row.follow_ups) assert.equal((await call('/step', { ...row, response: says('an answer') })).observation, followUp);
          const final = await call('/step', { ...row, response: says(last) });
          assert.deepEqual([final.reward, final.terminated, final.observation], [reward, true, null]);
        }
      }
    });
  });
});

/** A random source that deals the given ranks in order (each value lands in the middle of its rank's slot). */
const dealing = (ranks: readonly BlackjackRank[]) => {
  const values = ranks.map((rank) => (BLACKJACK_RANKS.indexOf(rank) + 0.5) / BLACKJACK_RANKS.length);
  return () => () => values.shift() ?? assert.fail('the deck ran out');
};

describe('blackjack, on its example.jsonl rows', () => {
  it('scripted hands: a draw scores 0, a loss −1, and a reply without an action tag stands', async () => {
    const row = rowsOf('blackjack')[0]!;
    const play = async (deck: BlackjackRank[], reply: string) =>
      withServer(blackjack({ newRandom: dealing(deck) }).createServer(), async (url) => {
        const call = agent(url);
        await call('/reset', row);
        const result = await call('/step', { ...row, response: says(reply) });
        assert.equal(result.terminated, true);
        played.push(result);
      });
    const played: Row[] = [];
    await play(['10', '8', '10', '8'], '<action> STAND </action>');
    await play(['10', '7', '10', '9'], 'I will think about it.');
    await play(['A', '6', '10', '7'], '<action>stand</action>');
    assert.deepEqual(
      played.map((result) => [result.reward, result.info.result]),
      [
        [0, 'draw'],
        [-1, 'loss'],
        [0, 'draw'],
      ],
    );
    assert.deepEqual([handValue(['A', 'A']), handValue(['A', 'K']), handValue(['A', 'A', 'K'])], [12, 21, 12], 'aces drop to 1 one at a time');
    assert.deepEqual(
      played[2]!.info,
      { result: 'draw', player: '[A, 6]', player_value: 17, dealer: '[10, 7]', dealer_value: 17 },
      'an ace counts 11 when it can',
    );
  });
});

describe('example_tool_call_multireward, on its example.jsonl rows', () => {
  it('serves get_weather as the rows define it', () => {
    const definition = exampleServers.example_tool_call_multireward!.create();
    for (const row of rowsOf('example_tool_call_multireward')) assert.deepEqual(definition.tools, toolsOf(row));
  });

  it('one right call alone scores 3; the components move apart, and always add up to the reward', async () => {
    await serve('example_tool_call_multireward', async (url) => {
      for (const row of rowsOf('example_tool_call_multireward')) {
        const expected = { name: 'get_weather', arguments: JSON.stringify(row.expected_call.arguments) };
        const scored = async (response: unknown) => {
          const verified = await verify(url, row, response);
          const { correctness, schema_valid, format } = verified.reward_components;
          assert.equal(verified.reward, correctness + schema_valid + format);
          return [correctness, schema_valid, format];
        };
        assert.deepEqual(await scored(calls(expected)), [1, 1, 1]);
        assert.deepEqual(await scored(calls({ name: 'get_weather', arguments: '{"city": "Atlantis"}' })), [0, 1, 1]);
        assert.deepEqual(await scored(calls({ name: 'get_weather', arguments: '{}' })), [0, 0, 1]);
        assert.deepEqual(await scored(calls({ name: 'get_weather', arguments: '{not json' })), [0, 0, 1]);
        assert.deepEqual(await scored(calls(expected, expected)), [1, 1, 0]);
        assert.deepEqual(await scored({ output: [...calls(expected).output, ...says('Here you go.').output] }), [1, 1, 0]);
        assert.deepEqual(await scored(says('It is sunny.')), [0, 0, 0]);
      }
    });
  });
});

describe('example_multi_step, on its example.jsonl rows', () => {
  it('serves the two tools as the rows define them', () => {
    const definition = exampleServers.example_multi_step!.create();
    for (const row of rowsOf('example_multi_step')) assert.deepEqual(definition.tools, toolsOf(row));
  });

  it('the last extraction counts: right values in order score 1, reversed is an order failure, the minefield is noticed', async () => {
    const extract = (values: number[]) => ({ name: 'extract_synonym_values', arguments: JSON.stringify({ synonym_values: values }) });
    await serve('example_multi_step', async (url) => {
      for (const row of rowsOf('example_multi_step')) {
        const expected: number[] = row.expected_synonym_values;
        const right = await verify(url, row, calls(extract([1]), extract(expected)));
        assert.deepEqual([right.reward, right.accuracy, right.set_overlap], [1, true, 1]);
        const reversed = await verify(url, row, calls(extract([...expected].reverse())));
        assert.deepEqual([reversed.reward, reversed.order_instruction_following_failure], [0, true]);
        const mined = await verify(url, row, calls(extract([expected[0]!, row.minefield_label_value])));
        assert.deepEqual([mined.reward, mined.set_overlap, mined.original_term_minefield_hit], [0, 1 / expected.length, true]);
        const none = await verify(url, row, says('no tools used'));
        assert.deepEqual([none.reward, none.parsed_synonym_values, none.set_overlap], [0, [], 0]);
      }
    });
  });
});
