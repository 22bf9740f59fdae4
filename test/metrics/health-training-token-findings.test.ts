import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message } from '../../src/core/message.js';
import { ROW_SCHEMA_VERSION, type ResultRow } from '../../src/core/result-row.js';
import { hasTrainingFields, trainingTokenFindings } from '../../src/metrics/health/training-token-findings.js';

/** A two-call episode: prompt [1, 2, 3], answer [4, 5], observation [6], answer [7]. */
const MESSAGES: Message[] = [
  { role: 'user', content: 'q', token_ids: [1, 2, 3] },
  { role: 'assistant', content: 'a', token_ids: [4, 5], generation_logprobs: [-0.1, -0.2] },
  { role: 'environment', content: 'o', token_ids: [6] },
  { role: 'assistant', content: 'b', token_ids: [7], generation_logprobs: [-0.3] },
];

/** The training fields `collect` writes for each call of MESSAGES, at output 0 and 2 (a tool output between). */
const call0 = () => ({ type: 'message', prompt_token_ids: [1, 2, 3], generation_token_ids: [4, 5], generation_log_probs: [-0.1, -0.2] });
const call1 = () => ({ type: 'message', prompt_token_ids: [1, 2, 3, 4, 5, 6], generation_token_ids: [7], generation_log_probs: [-0.3] });
const toolOutput = { type: 'function_call_output', output: '6' };

/** `messages` and `turns` null: the row has none. */
function row(output: unknown[] | undefined, messages: Message[] | null = MESSAGES, turns: number | null = 2): ResultRow {
  return {
    schema_version: ROW_SCHEMA_VERSION,
    responses_create_params: {},
    agent_ref: { name: 'agent' },
    _ng_task_index: 0,
    _ng_rollout_index: 0,
    duration_ms: 1,
    reward: 1,
    response: output === undefined ? {} : { output },
    ...(messages === null ? {} : { messages }),
    ...(turns === null ? {} : { turns: Array.from({ length: turns }, () => ({}) as NonNullable<ResultRow['turns']>[number]) }),
  };
}

/** Each finding as `check: message`. */
const found = (of: ResultRow) => trainingTokenFindings(of).map(({ check, severity, message }) => `${check} (${severity}): ${message}`);

describe('training tokens on response.output, against the messages', () => {
  it("finds nothing when each call's fields are what the messages derive", () => {
    assert.deepEqual(found(row([call0(), toolOutput, call1()])), []);
  });

  it('checks nothing on a row whose output carries no training fields', () => {
    for (const output of [undefined, [], [toolOutput, null, 'text', [1, 2]]]) {
      assert.deepEqual(found(row(output)), []);
      assert.equal(hasTrainingFields(row(output)), false);
    }
  });

  it('counts an item with any one of the three fields as carrying training tokens', () => {
    for (const field of ['prompt_token_ids', 'generation_token_ids', 'generation_log_probs']) {
      assert.equal(hasTrainingFields(row([toolOutput, { [field]: [] }])), true, field);
    }
  });

  it('names the first field of a call that differs, where it differs, with both values', () => {
    const cases: [(item: Record<string, unknown>) => void, string, ...string[]][] = [
      [(item) => ((item.prompt_token_ids as number[])[3] = 9), "prompt_token_ids[3] is 9, the messages' is 4"],
      [
        (item) => (item.generation_token_ids = [7, 8]),
        'generation_token_ids holds 2 values, the messages 1',
        'logprobs-length (error): response.output[2]: 1 logprobs for 2 token ids',
      ],
      [(item) => (item.generation_token_ids = []), 'generation_token_ids holds 0 values, the messages 1'],
      [(item) => (item.generation_log_probs = [-0.25]), "generation_log_probs[0] is -0.25, the messages' is -0.3"],
      [
        (item) => delete item.generation_log_probs,
        'generation_log_probs is missing, the messages have 1 values',
        'logprobs-missing (error): response.output[2]: 1 sampled tokens without generation_log_probs',
      ],
      [
        (item) => (item.prompt_token_ids = '1 2 3 4 5 6'),
        'prompt_token_ids is "1 2 3 4 5 6", the messages have 6 values',
        'training-tokens-malformed (error): response.output[2].prompt_token_ids is not a list of token ids',
      ],
      // Only the first: the prompt differs, and so does the generation.
      [
        (item) => {
          item.prompt_token_ids = [1];
          item.generation_token_ids = [8];
        },
        'prompt_token_ids holds 1 values, the messages 6',
      ],
    ];
    for (const [change, message, ...itemFindings] of cases) {
      const item = call1();
      change(item);
      assert.deepEqual(found(row([call0(), toolOutput, item])), [`training-tokens-mismatch (error): turn 1: response.output[2].${message}`, ...itemFindings]);
    }
  });

  it('reports each call that differs, in turn order', () => {
    const [first, second] = [call0(), call1()];
    first.generation_token_ids = [4, 6];
    second.prompt_token_ids = [1, 2, 3, 4, 6, 6];
    assert.deepEqual(found(row([first, toolOutput, second])), [
      "training-tokens-mismatch (error): turn 0: response.output[0].generation_token_ids[1] is 6, the messages' is 5",
      "training-tokens-mismatch (error): turn 1: response.output[2].prompt_token_ids[4] is 6, the messages' is 5",
    ]);
  });

  it('checks the values of a call that differs, since no message vouches for them', () => {
    const unsound = call1();
    unsound.generation_log_probs = [0.5];
    assert.deepEqual(found(row([call0(), toolOutput, unsound])), [
      "training-tokens-mismatch (error): turn 1: response.output[2].generation_log_probs[0] is 0.5, the messages' is -0.3",
      'logprobs-positive (error): response.output[2]: generation_log_probs[0] is 0.5, above 0',
    ]);
    const malformed = call1();
    malformed.generation_token_ids = [-7];
    assert.deepEqual(found(row([call0(), toolOutput, malformed])), [
      "training-tokens-mismatch (error): turn 1: response.output[2].generation_token_ids[0] is -7, the messages' is 7",
      'training-tokens-malformed (error): response.output[2].generation_token_ids is not a list of token ids',
    ]);
  });

  it('says so when the output and the messages hold different numbers of calls', () => {
    assert.deepEqual(found(row([call0()])), ['training-tokens-mismatch (error): response.output carries training tokens for 1 model call(s), the messages 2']);
    assert.deepEqual(found(row([call0(), call1(), call1()])), [
      'training-tokens-mismatch (error): response.output carries training tokens for 3 model call(s), the messages 2',
    ]);
    const unanswered = MESSAGES.filter((message) => message.role !== 'assistant');
    assert.deepEqual(found(row([call0()], unanswered, 0)), [
      'training-tokens-mismatch (error): response.output carries training tokens for 1 model call(s), the messages 0',
    ]);
  });

  it('says so when the messages derive no call: a message without ids, or a sampled one without logprobs', () => {
    const none = 'response.output carries training tokens for 2 model call(s), the messages none';
    const withoutIds = MESSAGES.map((message, i) => (i === 2 ? { role: message.role, content: message.content } : message));
    const withoutLogprobs = MESSAGES.map((message, i) => (i === 3 ? { ...message, generation_logprobs: undefined } : message));
    for (const messages of [withoutIds, withoutLogprobs]) {
      const findings = found(row([call0(), toolOutput, call1()], messages));
      assert.equal(findings.length, 1);
      assert.ok(findings[0]!.startsWith(`training-tokens-mismatch (error): ${none} (`), findings[0]);
    }
  });

  describe('assistant messages of a few-shot prompt', () => {
    // An example exchange, then two calls with a tool result and a user message between them.
    const fewShot: Message[] = [
      { role: 'user', content: 'example', token_ids: [1] },
      { role: 'assistant', content: 'shown', token_ids: [2] },
      { role: 'user', content: 'q', token_ids: [3] },
      { role: 'assistant', content: 'a', token_ids: [4, 5], generation_logprobs: [-0.1, -0.2] },
      { role: 'tool', content: 'o', token_ids: [6] },
      { role: 'user', content: 'go on', token_ids: [7] },
      { role: 'assistant', content: 'b', token_ids: [8], generation_logprobs: [-0.3] },
    ];
    const calls = [
      { prompt_token_ids: [1, 2, 3], generation_token_ids: [4, 5], generation_log_probs: [-0.1, -0.2] },
      { prompt_token_ids: [1, 2, 3, 4, 5, 6, 7], generation_token_ids: [8], generation_log_probs: [-0.3] },
    ];

    it('are part of the prompt when the row records fewer turns than assistant messages', () => {
      assert.deepEqual(found(row(calls, fewShot, 2)), []);
    });

    it('count as sampled when the row records no turns (and, without logprobs, derive no call)', () => {
      assert.match(found(row(calls, fewShot, null))[0]!, /for 2 model call\(s\), the messages none/);
    });

    it('are all sampled when the row records more turns than assistant messages', () => {
      assert.deepEqual(found(row([call0(), toolOutput, call1()], MESSAGES, 3)), []);
    });
  });
});

describe('training tokens on a row with no token ids in its messages (an agent server row)', () => {
  const agentRow = (output: unknown[]) => row(output, null, null);

  it('finds nothing in sound calls, each continuing the tokens before it', () => {
    assert.deepEqual(found(agentRow([call0(), toolOutput, call1()])), []);
    const textOnly = MESSAGES.map(({ role, content }) => ({ role, content }));
    assert.deepEqual(found(row([call0(), toolOutput, call1()], textOnly)), []);
    // A call may see exactly the tokens before it (no observation in between), and token id 0 is a token id.
    assert.deepEqual(
      found(
        agentRow([
          { ...call0(), generation_token_ids: [0, 5] },
          { ...call1(), prompt_token_ids: [1, 2, 3, 0, 5] },
        ]),
      ),
      [],
    );
  });

  it('names each field that is not a list of token ids, prompt first', () => {
    const malformed = (field: string) => `training-tokens-malformed (error): response.output[1].${field} is not a list of token ids`;
    for (const ids of [[1, -2], [1.5], ['1'], [2 ** 53], '1 2', undefined]) {
      assert.deepEqual(found(agentRow([toolOutput, { ...call0(), prompt_token_ids: ids }])), [malformed('prompt_token_ids')], JSON.stringify(ids));
    }
    assert.deepEqual(found(agentRow([toolOutput, { generation_log_probs: [] }])), [malformed('prompt_token_ids'), malformed('generation_token_ids')]);
  });

  it("checks each call's logprobs against its generated tokens, naming the item", () => {
    assert.deepEqual(found(agentRow([{ ...call0(), generation_log_probs: [-1] }, toolOutput, { ...call1(), generation_log_probs: undefined }])), [
      'logprobs-length (error): response.output[0]: 1 logprobs for 2 token ids',
      'logprobs-missing (error): response.output[2]: 1 sampled tokens without generation_log_probs',
    ]);
    // Generated ids that are not ids count as none sampled: the malformed finding says it.
    assert.deepEqual(found(agentRow([{ ...call0(), generation_token_ids: [-4, 5], generation_log_probs: undefined }])), [
      'training-tokens-malformed (error): response.output[0].generation_token_ids is not a list of token ids',
    ]);
  });

  describe("each call's prompt continues the tokens before it (NeMo RL: Non-contiguous messages found!)", () => {
    const broken = (at: number, from: number) =>
      `training-tokens-malformed (error): response.output[${at}].prompt_token_ids do not continue the tokens before it (from token ${from}): NeMo RL refuses the row (Non-contiguous messages found!)`;

    it('names the call and the first token that differs', () => {
      assert.deepEqual(found(agentRow([call0(), toolOutput, { ...call1(), prompt_token_ids: [1, 2, 3, 4, 9, 6] }])), [broken(2, 4)]);
      assert.deepEqual(found(agentRow([call0(), toolOutput, { ...call1(), prompt_token_ids: [0, 2, 3, 4, 5, 6] }])), [broken(2, 0)]);
    });

    it('takes a prompt shorter than the tokens before it as broken where it ends', () => {
      assert.deepEqual(found(agentRow([call0(), { ...call1(), prompt_token_ids: [1, 2, 3, 4] }])), [broken(1, 4)]);
    });

    it('holds each call to the one before it: its prompt and its generation', () => {
      const third = { prompt_token_ids: [1, 2, 3, 4, 5, 6, 7, 8], generation_token_ids: [9], generation_log_probs: [-1] };
      assert.deepEqual(found(agentRow([call0(), call1(), third])), []);
      assert.deepEqual(found(agentRow([call0(), call1(), { ...third, prompt_token_ids: [1, 2, 3, 4, 5, 6, 8] }])), [broken(2, 6)]);
      assert.deepEqual(found(agentRow([call0(), call1(), { ...third, prompt_token_ids: [1, 2, 3, 4, 5, 6] }])), [broken(2, 6)]);
    });

    it('reports only the first break', () => {
      const stray = { ...call1(), prompt_token_ids: [8] };
      assert.deepEqual(found(agentRow([call0(), stray, stray])), [broken(1, 0)]);
    });

    it('skips calls that generated nothing or whose ids are not ids: they constrain no later call', () => {
      assert.deepEqual(
        found(
          agentRow([
            { ...call0(), generation_token_ids: [], generation_log_probs: [] },
            { ...call1(), prompt_token_ids: [6] },
          ]),
        ),
        [],
      );
      assert.deepEqual(
        found(
          agentRow([
            { ...call0(), prompt_token_ids: [-1] },
            { ...call1(), prompt_token_ids: [6] },
          ]),
        ),
        ['training-tokens-malformed (error): response.output[0].prompt_token_ids is not a list of token ids'],
      );
      assert.deepEqual(found(agentRow([call0(), { ...call1(), prompt_token_ids: 'x' }, { ...call1(), prompt_token_ids: [1, 2, 3, 4, 5] }])), [
        'training-tokens-malformed (error): response.output[1].prompt_token_ids is not a list of token ids',
      ]);
    });
  });
});
