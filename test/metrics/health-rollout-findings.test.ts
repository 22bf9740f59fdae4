import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROW_SCHEMA_VERSION, type ResultRow } from '../../src/core/result-row.js';
import type { TokenDecoder } from '../../src/core/token-decoder.js';
import type { TurnRecord } from '../../src/core/turn-record.js';
import type { HealthCheckId } from '../../src/metrics/health/health-check.js';
import { rolloutFindings } from '../../src/metrics/health/rollout-findings.js';

/** A tokenizer of 26 tokens, one letter each: id 0 is "a", id 4 is "e". */
const letters: TokenDecoder = { decode: (ids) => ids.map((id) => String.fromCharCode(97 + id)).join(''), vocabSize: 26 };

const turn = (prompt: number, generated: number, env: number, index = 0): TurnRecord => ({
  index,
  prompt_tokens: prompt,
  generated_tokens: generated,
  env_tokens: env,
  finish_reason: { unified: 'stop', raw: 'stop' },
  reward: 0,
  observation_truncated: false,
  timing: { generation_ms: 1, env_ms: 1 },
});

/**
 * A clean two-turn rollout as `collect` writes it: prompt [1, 2, 3], answer "ef" [4, 5], observation
 * [6], answer "h" [7]; the turns count them, usage sums them, response.output carries each call's
 * training fields.
 */
function twoTurns(): ResultRow {
  return {
    schema_version: ROW_SCHEMA_VERSION,
    responses_create_params: {},
    agent_ref: { name: 'agent' },
    _ng_task_index: 0,
    _ng_rollout_index: 0,
    duration_ms: 1,
    reward: 1,
    num_turns: 2,
    termination: { kind: 'env-done' },
    sampling: { temperature: 1, top_p: 1, max_tokens: 64, greedy: false },
    messages: [
      { role: 'user', content: 'q', token_ids: [1, 2, 3] },
      { role: 'assistant', content: 'ef', token_ids: [4, 5], generation_logprobs: [-0.1, -0.2] },
      { role: 'environment', content: 'g', token_ids: [6] },
      { role: 'assistant', content: 'h', token_ids: [7], generation_logprobs: [-0.3] },
    ],
    turns: [turn(3, 2, 1, 0), turn(6, 1, 0, 1)],
    response: {
      output: [
        { type: 'message', role: 'assistant', prompt_token_ids: [1, 2, 3], generation_token_ids: [4, 5], generation_log_probs: [-0.1, -0.2] },
        { type: 'message', role: 'assistant', prompt_token_ids: [1, 2, 3, 4, 5, 6], generation_token_ids: [7], generation_log_probs: [-0.3] },
      ],
      usage: { input_tokens: 9, output_tokens: 3, total_tokens: 12 },
    },
  };
}

/** A row as an agent server returns it: text messages or none, no token ids, no training fields. */
function agentRow(output: unknown[] | undefined, withMessages = false): ResultRow {
  const row = twoTurns();
  const { messages, turns, num_turns, ...rest } = row;
  return {
    ...rest,
    ...(withMessages ? { messages: messages!.map(({ role, content }) => ({ role, content })), turns, num_turns } : {}),
    response: output === undefined ? {} : { output },
  };
}

/** `twoTurns()` after `change`. */
function changed(change: (row: ResultRow & Required<Pick<ResultRow, 'messages' | 'turns'>>) => void): ResultRow {
  const row = twoTurns() as ResultRow & Required<Pick<ResultRow, 'messages' | 'turns'>>;
  change(row);
  return row;
}

/** Every finding as `check (severity): message`, in report order. */
const found = (row: ResultRow, decoder?: TokenDecoder) =>
  rolloutFindings(row, decoder).map(({ check, severity, message }) => `${check} (${severity}): ${message}`);

/** The messages of one check's findings (`decoder` null: no tokenizer). */
const of = (check: HealthCheckId, row: ResultRow, decoder: TokenDecoder | null = letters) =>
  rolloutFindings(row, decoder ?? undefined)
    .filter((finding) => finding.check === check)
    .map((finding) => finding.message);

describe('rollout findings', () => {
  it('finds nothing wrong with a clean rollout, with or without a tokenizer', () => {
    assert.deepEqual(found(twoTurns(), letters), []);
    assert.deepEqual(found(twoTurns()), []);
    assert.deepEqual(found(changed((row) => delete (row as ResultRow).turns)), [], 'a row without turns is held to none of their counts');
    assert.deepEqual(found(changed((row) => delete row.termination)), [], 'a row without termination');
    const oneTurn = changed((row) => {
      row.messages.splice(2);
      row.turns = [turn(3, 2, 0)];
      row.num_turns = 1;
      row.response = { output: row.response.output!.slice(0, 1), usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } };
    });
    assert.deepEqual(found(oneTurn, letters), []);
  });

  it('lists findings in the order of the checks, whatever the order of their causes', () => {
    const row = changed((row) => {
      row.messages[3] = { role: 'assistant', content: 'x', token_ids: [30], generation_logprobs: [0.5] };
      row.turns[1]!.finish_reason = { unified: 'length' };
      row.token_drift_count = 1;
      row.drift_unchecked = 1;
      row.response.usage!.total_tokens = 0;
    });
    assert.deepEqual(
      rolloutFindings(row, letters).map((finding) => finding.check),
      [
        'usage-mismatch',
        'token-id-out-of-vocabulary',
        'token-text-mismatch',
        'logprobs-positive',
        'training-tokens-mismatch',
        'runaway-generation',
        'token-drift',
        'drift-unchecked',
      ],
    );
  });

  describe('no-token-record', () => {
    const warning = 'no-token-record (warning): no token ids recorded: the token and logprob checks cannot run on this rollout';
    const answer = { type: 'message', role: 'assistant', content: [] };

    it('warns of a rollout with no token ids, in no message or none at all', () => {
      assert.deepEqual(found(agentRow([answer])), [warning]);
      assert.deepEqual(found(agentRow([answer], true), letters), [warning]);
    });

    it('warns of a rollout whose row says it has no training tokens, and runs no token check on it', () => {
      const row = changed((row) => {
        row.has_training_tokens = false;
        row.response.output = [answer];
        delete row.messages[1]!.generation_logprobs;
        row.turns[1]!.env_tokens = 5;
      });
      assert.deepEqual(found(row), [warning]);
    });

    it('is not given when the row is evaluation-only (its verdict says so) or carries training fields on response.output', () => {
      assert.deepEqual(found({ ...agentRow([answer], true), evaluation_only: true }), []);
      const trainingOnly = agentRow(twoTurns().response.output, true);
      assert.deepEqual(found(trainingOnly), []);
    });
  });

  describe('prompt-too-long and no-assistant-turn', () => {
    it('says a rollout whose prompt left no room to generate was never scored, with the reason when the row gives one', () => {
      const zeroTurn = (detail?: string) =>
        changed((row) => {
          row.messages = [row.messages[0]!];
          row.turns = [];
          row.num_turns = 0;
          row.termination = detail === undefined ? { kind: 'prompt-too-long' } : { kind: 'prompt-too-long', detail };
          row.response = { output: [] };
        });
      assert.deepEqual(found(zeroTurn('3 prompt tokens, max_seq_len 3'), letters), [
        'prompt-too-long (error): the prompt alone filled max_seq_len (3 prompt tokens, max_seq_len 3): not scored',
      ]);
      assert.deepEqual(found(zeroTurn()), ['prompt-too-long (error): the prompt alone filled max_seq_len (no turn was run): not scored']);
      const unexplained = zeroTurn();
      delete unexplained.termination;
      assert.deepEqual(found(unexplained), ['prompt-too-long (error): the prompt alone filled max_seq_len (no turn was run): not scored']);
    });

    it('finds no answer in messages without an assistant message, whatever response.output holds', () => {
      const row = changed((row) => {
        row.messages = [row.messages[0]!];
        delete (row as ResultRow).turns;
      });
      assert.deepEqual(of('no-assistant-turn', row), ['no assistant turn: the model never answered']);
    });

    it("reads an agent server's answer from response.output: a message, a tool call or reasoning", () => {
      for (const item of [{ type: 'message', role: 'assistant' }, { type: 'function_call', name: 'f' }, { type: 'reasoning' }]) {
        assert.deepEqual(of('no-assistant-turn', agentRow([{ type: 'message', role: 'user' }, item])), [], JSON.stringify(item));
      }
      const unanswered = 'no-assistant-turn (error): no assistant turn: the model never answered';
      for (const output of [undefined, [], [{ type: 'message', role: 'user' }, null, undefined, 'assistant', 7, { type: 'function_call_output' }]]) {
        assert.deepEqual(found(agentRow(output)), [
          'no-token-record (warning): no token ids recorded: the token and logprob checks cannot run on this rollout',
          unanswered,
        ]);
      }
    });
  });

  describe('empty-generation', () => {
    it('names a turn that generated no tokens', () => {
      const row = changed((row) => {
        row.messages[3] = { role: 'assistant', content: '', token_ids: [], generation_logprobs: [] };
        row.turns[1] = turn(6, 0, 0, 1);
        row.response = { output: [row.response.output![0], { prompt_token_ids: [1, 2, 3, 4, 5, 6], generation_token_ids: [], generation_log_probs: [] }] };
      });
      assert.deepEqual(found(row, letters), ['empty-generation (error): turn 1: the model generated no tokens']);
    });

    it('names each empty turn once, in order, from its message or its turn record', () => {
      const row = changed((row) => {
        row.messages[3]!.token_ids = [];
        row.turns[0]!.generated_tokens = 0;
      });
      assert.deepEqual(of('empty-generation', row), ['turn 0, 1: the model generated no tokens']);
      const both = changed((row) => {
        row.messages[3]!.token_ids = [];
        row.turns[1]!.generated_tokens = 0;
      });
      assert.deepEqual(of('empty-generation', both), ['turn 1: the model generated no tokens']);
    });
  });

  describe('token-count-mismatch', () => {
    it("holds the messages' token ids to the last turn's prompt + generated + observation", () => {
      assert.deepEqual(found(changed((row) => (row.turns[1]!.env_tokens = 1))), [
        'token-count-mismatch (error): the messages hold 7 token ids, the last turn counts 8 (prompt 6 + generated 1 + observation 1)',
      ]);
    });

    it("holds each assistant message to its turn's generated tokens", () => {
      const row = changed((row) => (row.turns[0]!.generated_tokens = 3));
      assert.deepEqual(of('token-count-mismatch', row), ['turn 0: the assistant message holds 2 token ids, the turn generated 3']);
    });

    it('counts an assistant message without token ids once, on the sequence', () => {
      const row = changed((row) => (row.messages[3] = { role: 'assistant', content: 'h' }));
      assert.deepEqual(of('token-count-mismatch', row), ['the messages hold 6 token ids, the last turn counts 7 (prompt 6 + generated 1 + observation 0)']);
    });

    it('says when turns have no assistant message', () => {
      const row = changed((row) => row.turns.push(turn(7, 0, 0, 2)));
      assert.deepEqual(of('token-count-mismatch', row), ['2 assistant messages for 3 turns']);
    });
  });

  describe('usage-mismatch', () => {
    const usage = (fields: NonNullable<ResultRow['response']['usage']>) => changed((row) => (row.response.usage = fields));

    it("holds usage's input tokens to the turns' prompts, its output tokens to their generations, its total to their sum", () => {
      assert.deepEqual(found(usage({ input_tokens: 10, output_tokens: 3, total_tokens: 13 })), [
        "usage-mismatch (error): usage.input_tokens is 10, the turns' prompts add up to 9",
      ]);
      assert.deepEqual(found(usage({ input_tokens: 9, output_tokens: 2, total_tokens: 11 })), [
        'usage-mismatch (error): usage.output_tokens is 2, the turns generated 3',
      ]);
      assert.deepEqual(found(usage({ input_tokens: 9, output_tokens: 3, total_tokens: 13 })), [
        'usage-mismatch (error): usage.total_tokens is 13, not input + output (12)',
      ]);
      assert.deepEqual(found(usage({ input_tokens: 8, output_tokens: 4, total_tokens: 11 })), [
        "usage-mismatch (error): usage.input_tokens is 8, the turns' prompts add up to 9",
        'usage-mismatch (error): usage.output_tokens is 4, the turns generated 3',
        'usage-mismatch (error): usage.total_tokens is 11, not input + output (12)',
      ]);
    });

    it('checks only the numbers usage gives, and nothing without turns', () => {
      for (const fields of [
        {},
        { input_tokens: 9 },
        { input_tokens: 9, output_tokens: 3 },
        { output_tokens: 3, total_tokens: 99 },
        { input_tokens: 9, total_tokens: 99 },
      ]) {
        assert.deepEqual(found(usage(fields)), [], JSON.stringify(fields));
      }
      assert.deepEqual(found(changed((row) => (row.response.usage = null))), []);
      const noTurns = changed((row) => {
        delete (row as ResultRow).turns;
        row.response.usage = { input_tokens: 1, output_tokens: 1, total_tokens: 5 };
      });
      assert.deepEqual(found(noTurns), []);
    });
  });

  describe('token-id-out-of-vocabulary', () => {
    it('names the first id of each field at or past the vocabulary size, in the messages and the training fields', () => {
      const row = changed((row) => {
        row.messages[0]!.token_ids = [25, 26, 40];
        const output = row.response.output as Record<string, unknown>[];
        output[1]!.prompt_token_ids = [1, 2, 3, 4, 5, 6, 99];
        output[0]!.generation_token_ids = [25, 26];
        output.unshift({ type: 'reasoning' });
      });
      assert.deepEqual(of('token-id-out-of-vocabulary', row), [
        'messages[0].token_ids[1] = 26 is outside the vocabulary [0, 26)',
        'response.output[1].generation_token_ids[1] = 26 is outside the vocabulary [0, 26)',
        'response.output[2].prompt_token_ids[6] = 99 is outside the vocabulary [0, 26)',
      ]);
    });

    it('passes over what holds no ids, and runs only when the vocabulary size is known', () => {
      const odd = changed((row) => {
        row.response.output = [null, 'text', { prompt_token_ids: 'x', generation_token_ids: ['99'], generation_log_probs: [-1] }];
      });
      assert.deepEqual(of('token-id-out-of-vocabulary', odd), []);
      const outside = changed((row) => (row.messages[0]!.token_ids = [1, 2, 30]));
      assert.deepEqual(of('token-id-out-of-vocabulary', outside, { decode: letters.decode }), []);
      assert.deepEqual(of('token-id-out-of-vocabulary', outside, null), []);
    });
  });

  describe('token-text-mismatch', () => {
    it('says what the ids of an answer decode to and what its message says', () => {
      assert.deepEqual(
        found(
          changed((row) => (row.messages[3]!.content = 'x')),
          letters,
        ),
        ['token-text-mismatch (error): turn 1: the token ids decode to "h", the message says "x"'],
      );
    });

    it('accepts text the template wrapped, or the message padded with whitespace', () => {
      for (const content of ['e', 'f', ' ef\n', '   ', ''])
        assert.deepEqual(
          of(
            'token-text-mismatch',
            changed((row) => (row.messages[1]!.content = content)),
          ),
          [],
          content,
        );
    });

    it('checks the reasoning too, and says one mismatch per answer', () => {
      const reasoned = (reasoning: string, content = 'ef') => changed((row) => Object.assign(row.messages[1]!, { content, reasoning_content: reasoning }));
      assert.deepEqual(of('token-text-mismatch', reasoned('e', 'f')), []);
      assert.deepEqual(of('token-text-mismatch', reasoned('z')), ['turn 0: the token ids decode to "ef", the message says "z"']);
      assert.deepEqual(of('token-text-mismatch', reasoned('z', 'y')), ['turn 0: the token ids decode to "ef", the message says "y"']);
    });

    it('skips answers without ids, and runs only with a tokenizer', () => {
      const row = changed((row) => (row.messages[1]!.content = 'x'));
      assert.deepEqual(of('token-text-mismatch', row, null), []);
      assert.deepEqual(
        of(
          'token-text-mismatch',
          changed((row) => (row.messages[3] = { role: 'assistant', content: 'h', token_ids: [] })),
        ),
        [],
      );
    });

    it('clips both texts past 60 characters', () => {
      const long = (length: number): TokenDecoder => ({ decode: () => 'd'.repeat(length) });
      const sixty = 'x'.repeat(60);
      assert.deepEqual(
        of(
          'token-text-mismatch',
          changed((row) => (row.messages[3]!.content = sixty)),
          long(60),
        ).at(-1),
        `turn 1: the token ids decode to "${'d'.repeat(60)}", the message says "${sixty}"`,
      );
      assert.deepEqual(
        of(
          'token-text-mismatch',
          changed((row) => (row.messages[3]!.content = `${sixty}x`)),
          long(61),
        ).at(-1),
        `turn 1: the token ids decode to "${'d'.repeat(60)}…", the message says "${sixty}…"`,
      );
    });
  });

  describe('logprobs of the messages', () => {
    it("checks each answer's generation_logprobs, naming its turn", () => {
      assert.deepEqual(
        of(
          'logprobs-positive',
          changed((row) => (row.messages[3]!.generation_logprobs = [0.5])),
        ),
        ['turn 1: generation_logprobs[0] is 0.5, above 0'],
      );
      assert.deepEqual(
        of(
          'logprobs-missing',
          changed((row) => delete row.messages[1]!.generation_logprobs),
        ),
        ['turn 0: 2 sampled tokens without generation_logprobs'],
      );
    });

    it('holds only sampled answers to logprobs, not the assistant messages of a few-shot prompt', () => {
      const row = changed((row) => {
        row.messages.unshift({ role: 'user', content: 'b', token_ids: [1] }, { role: 'assistant', content: 'c', token_ids: [2] });
        row.turns = row.turns.map((record) => ({ ...record, prompt_tokens: record.prompt_tokens + 2 }));
        row.response.usage = { input_tokens: 13, output_tokens: 3, total_tokens: 16 };
        for (const item of row.response.output as { prompt_token_ids: number[] }[]) item.prompt_token_ids.unshift(1, 2);
      });
      assert.deepEqual(found(row, letters), []);
    });
  });

  describe('runaway-generation', () => {
    it('names the turns cut by max_tokens, and the limit when the row gives it', () => {
      const cut = (turns: number[], maxTokens?: number) =>
        changed((row) => {
          for (const index of turns) row.turns[index]!.finish_reason = { unified: 'length', raw: 'length' };
          if (maxTokens === undefined) delete row.sampling;
        });
      assert.deepEqual(found(cut([1], 64)), ['runaway-generation (warning): turn 1: the generation filled max_tokens (64)']);
      assert.deepEqual(found(cut([0, 1])), ['runaway-generation (warning): turn 0, 1: the generation filled max_tokens']);
    });

    it('says the episode filled max_tokens when only its termination says so', () => {
      assert.deepEqual(found(changed((row) => (row.termination = { kind: 'max-tokens' }))), [
        'runaway-generation (warning): the episode (termination max-tokens): the generation filled max_tokens (64)',
      ]);
      assert.deepEqual(found(changed((row) => (row.termination = { kind: 'max-turns' }))), []);
    });
  });

  describe('token-drift and drift-unchecked', () => {
    it('warns of turns the template would have rendered differently', () => {
      assert.deepEqual(found(changed((row) => (row.token_drift_count = 1))), [
        'token-drift (warning): 1 turn(s) where the template would have rendered the history differently',
      ]);
      assert.deepEqual(found(changed((row) => (row.token_drift_count = 0))), []);
    });

    it('warns of turns whose prompt the server rendered without returning it, unless the row is evaluation-only', () => {
      assert.deepEqual(found(changed((row) => (row.drift_unchecked = 2))), [
        'drift-unchecked (warning): 2 turn(s) whose prompt the server rendered and did not return: not known to be drift-free',
      ]);
      assert.deepEqual(found(changed((row) => (row.drift_unchecked = 0))), []);
      assert.deepEqual(
        found(
          changed((row) => {
            row.drift_unchecked = 2;
            row.evaluation_only = true;
          }),
        ),
        [],
      );
    });
  });
});
