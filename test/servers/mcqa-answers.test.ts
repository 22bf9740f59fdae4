import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mcqa, type McqaOptions } from '../../src/servers/resources/examples/mcqa.js';
import { withServer } from '../support/with-server.js';

/**
 * The cases NeMo Gym's own mcqa tests (resources_servers/mcqa/tests/test_app.py) put to `verify`, put
 * to the port's `/verify` over loopback: the letter each reply is graded as, or null.
 */

type Row = Record<string, unknown>;
interface Case {
  text: string;
  /** The letter NeMo Gym's server extracts; the reward is 1 exactly when it is the expected answer. */
  extracted: string | null;
  expected?: string;
  letters?: string;
  row?: Row;
}

const says = (text: string) => ({
  id: 'resp_test',
  object: 'response',
  output: [{ id: 'msg_test', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
});
const optionsOf = (letters: string) => [...letters].map((letter) => ({ [letter]: `opt${letter}` }));
/** test_app.py's letters A–J with texts, where the real rollouts boxed E and I. */
const TEN = [...'ABCDEFGHIJ'].map((letter) => ({ [letter]: `option ${letter} text` }));

async function graded(server: McqaOptions, cases: readonly Case[]): Promise<void> {
  await withServer(mcqa(server).createServer(), async (url) => {
    for (const { text, extracted, expected = extracted ?? 'B', letters = 'ABCD', row = {} } of cases) {
      const body = {
        responses_create_params: { input: [{ role: 'user', content: 'Q?' }] },
        options: optionsOf(letters),
        expected_answer: expected,
        ...row,
        response: says(text),
      };
      const response = await fetch(`${url}/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(response.status, 200, text);
      const verified = (await response.json()) as Row;
      assert.deepEqual([verified.extracted_answer, verified.reward], [extracted, extracted === expected ? 1 : 0], JSON.stringify(text));
    }
  });
}

describe("mcqa grades the replies NeMo Gym's own tests grade, as they do", () => {
  it('strict_single_letter_boxed reads the LAST box: a \\text{} wrapper, a letter leading its option text, not option text alone', async () => {
    await graded({}, [
      { text: 'The answer is C.', extracted: null, expected: 'C' },
      { text: 'Final: \\boxed{ [C] }', extracted: 'C' },
      { text: '\\boxed{B}', extracted: 'B' },
      { text: '\\boxed{\\text{E}}', extracted: 'E', row: { options: TEN } },
      { text: '\\boxed{\\text{I: NGS can detect both coding and non-coding regions of the genome.}}', extracted: 'I', row: { options: TEN } },
      { text: '\\[ \\boxed{E: \\text{A polygenic risk score can provide a probability.}} \\]', extracted: 'E', row: { options: TEN } },
      { text: '\\boxed{A polygenic risk score can provide a probability.}', extracted: null, expected: 'A', row: { options: TEN } },
      { text: '\\boxed{B', extracted: null, expected: 'B' },
      { text: 'Candidate is \\boxed{C}, but on reflection the answer is \\boxed{E}', extracted: 'E', row: { options: TEN } },
      { text: 'Thinking: \\boxed{\\text{some idea}}. Final answer: \\boxed{E}', extracted: 'E', row: { options: TEN } },
    ]);
  });

  it("lenient_boxed takes an option's text in the box; lenient_answer_colon takes a letter or an option's text after Answer:", async () => {
    await graded({}, [
      { text: 'Final: \\boxed{ optC }', extracted: 'C', row: { grading_mode: 'lenient_boxed' } },
      { text: '\\boxed{\\text{E}}', extracted: 'E', row: { options: TEN, grading_mode: 'lenient_boxed' } },
      { text: 'Answer: c', extracted: 'C', row: { grading_mode: 'lenient_answer_colon' } },
      { text: 'Answer: optC', extracted: 'C', row: { grading_mode: 'lenient_answer_colon' } },
    ]);
  });

  it("a row's template regexes come first: case-insensitive, the last match, a list tried in order, localised letters; a broken one falls back", async () => {
    const regex = (output_regex: string | string[], options?: Row[]) => ({ template_metadata: { output_regex }, ...(options ? { options } : {}) });
    await graded({}, [
      { text: 'Option Selected: B', extracted: 'B', row: regex('Option Selected:\\s*([A-Za-z])') },
      { text: 'ANSWER IS b', extracted: 'B', row: regex('ANSWER IS\\s*([A-Za-z])') },
      { text: 'Antwort: B', extracted: 'B', row: regex(['Answer\\s*:\\s*([A-Za-z])', 'Antwort\\s*:\\s*([A-Za-z])']) },
      { text: 'الإجابة: ب', extracted: 'B', row: regex(['الإجابة:\\s*([أ-د])']) },
      { text: 'Maybe Answer: A? Let me reconsider. Final Answer: B', extracted: 'B', row: regex('Answer:\\s*([A-Za-z])') },
      { text: 'Final Choice: B', extracted: 'B', row: regex('Final Choice:\\s*([A-Za-z])') },
      { text: '\\boxed{B}', extracted: 'B', row: regex('([') },
      { text: 'Selected: B', extracted: 'B', row: regex('Selected:\\s*([A-Za-z])', []) },
    ]);
  });

  it("the server's grading_mode overrides the row's", async () => {
    const text = 'I think the answer is B.\n\nAnswer: B';
    await graded({ gradingMode: 'lenient_answer_colon' }, [{ text, extracted: 'B', row: { grading_mode: 'strict_single_letter_boxed' } }]);
    await graded({}, [{ text, extracted: null, expected: 'B', row: { grading_mode: 'strict_single_letter_boxed' } }]);
    await graded({ gradingMode: 'lenient_answer_colon' }, [{ text: '**Answer: C**', extracted: null, expected: 'C' }]);
  });

  it('lenient_answer_colon_md: markdown Answer:, wrapped letters, the last payload that names one letter, never a list', async () => {
    await graded({ gradingMode: 'lenient_answer_colon_md' }, [
      { text: 'The answer is B.\n\nAnswer: B', extracted: 'B' },
      { text: 'Reasoning here.\n\n**Answer: C**', extracted: 'C' },
      { text: '__Answer__: A', extracted: 'A' },
      { text: 'Answer: B because C is not valid', extracted: 'B' },
      { text: 'Answer: B/B', extracted: 'B' },
      { text: 'Answer: $D$', extracted: 'D' },
      { text: 'Answer: (D)', extracted: 'D' },
      { text: '\\boxed{\\text{Answer: G}}', extracted: 'G', letters: 'ABCDEFGHIJ' },
      { text: 'Answer: unknown', extracted: null },
      { text: 'Answer: G', extracted: null },
      ...['Answer: A/B/C', 'Answer: A or B', 'Answer: A and B', 'Answer: A, B'].map((text) => ({ text, extracted: null, expected: 'A' })),
      { text: 'Answer: B/I', extracted: null, letters: 'ABCDEFGHIJ' },
      { text: '**Answer: D/H**', extracted: null, expected: 'D', letters: 'ABCDEFGHIJ' },
      { text: 'Answer: A\nAnswer: B', extracted: 'B' },
      ...['unknown', 'G', 'A/B/C'].map((payload) => ({ text: `Answer: B\nAnswer: ${payload}`, extracted: 'B' })),
      { text: "I think it might be B but I'm not sure", extracted: null },
    ]);
  });

  it('an option whose text is null is no option, and the row is still graded (NeMo Gym allows null texts)', async () => {
    await graded({}, [{ text: '\\boxed{B}', extracted: null, row: { options: [{ A: 'x' }, { B: null }, { C: 'y' }] } }]);
  });
});
