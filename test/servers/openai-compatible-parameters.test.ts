import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { qwen3Tokenizer, startQwen3Server } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
const { url } = await startQwen3Server();

interface Choice {
  index: number;
  text?: string;
  message?: { content: string | null };
  token_ids?: number[];
}
interface Answer {
  status: number;
  body: {
    choices?: Choice[];
    prompt_token_ids?: number[];
    usage?: { prompt_tokens: number; completion_tokens: number };
    error?: { message: string; param: string | null; code: string | null };
  };
}

async function post(path: string, body: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}
const completion = (extra: Record<string, unknown>) => post('/v1/completions', { prompt: 'What is 2+2?', max_tokens: 16, seed: 3, ...extra });
const chat = (extra: Record<string, unknown>) =>
  post('/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 16, seed: 3, ...extra });

describe('the OpenAI-compatible server honours what its generator can, and names what it refuses', () => {
  it('samples n choices, each with a seed derived from the request seed: the first is the n = 1 answer, the others differ, and usage counts them all', async () => {
    for (const route of [completion, chat]) {
      const one = await route({ return_token_ids: true });
      const three = await route({ n: 3, return_token_ids: true });
      assert.equal(three.status, 200);
      assert.deepEqual(
        three.body.choices!.map((choice) => choice.index),
        [0, 1, 2],
      );
      assert.deepEqual(three.body.choices![0]!.token_ids, one.body.choices![0]!.token_ids);
      assert.equal(new Set(three.body.choices!.map((choice) => choice.token_ids!.join())).size, 3);
      assert.equal(
        three.body.usage!.completion_tokens,
        three.body.choices!.reduce((sum, choice) => sum + choice.token_ids!.length, 0),
      );
      assert.deepEqual(await route({ n: 3, return_token_ids: true }).then((again) => again.body.choices), three.body.choices);
    }
  });

  it('echoes the prompt before the completion when asked', async () => {
    const plain = await completion({});
    const echoed = await completion({ echo: true });
    assert.equal(echoed.body.choices![0]!.text, `What is 2+2?${plain.body.choices![0]!.text}`);
    const refused = await completion({ echo: true, logprobs: 0 });
    assert.deepEqual([refused.status, refused.body.error!.param], [400, 'echo']);
  });

  it('takes max_completion_tokens and the defaults of everything it cannot do', async () => {
    const answer = await chat({
      max_completion_tokens: 2,
      stream: false,
      presence_penalty: 0,
      frequency_penalty: 0,
      repetition_penalty: 1,
      logit_bias: {},
      response_format: { type: 'text' },
      min_tokens: 0,
      ignore_eos: false,
      min_p: 0,
      prompt_logprobs: null,
      user: 'someone',
      return_token_ids: true,
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.choices![0]!.token_ids!.length, 2);
  });

  it('refuses every parameter it cannot honour with a 400 naming it, on chat and completions', async () => {
    const refused: Record<string, unknown>[] = [
      { prompt_logprobs: 1 },
      { response_format: { type: 'json_object' } },
      { presence_penalty: 0.5 },
      { frequency_penalty: -1 },
      { repetition_penalty: 1.2 },
      { logit_bias: { '42': 5 } },
      { min_tokens: 4 },
      { ignore_eos: true },
      { min_p: 0.1 },
    ];
    for (const route of [completion, chat]) {
      for (const asked of refused) {
        const [param] = Object.keys(asked);
        const answer = await route(asked);
        assert.equal(answer.status, 400, JSON.stringify(asked));
        assert.equal(answer.body.error!.param, param);
        assert.equal(answer.body.error!.code, 'unsupported_parameter');
        assert.match(answer.body.error!.message, new RegExp(`^${param} `));
      }
    }
  });

  it('refuses unknown fields, naming them, rather than ignoring them', async () => {
    for (const route of [completion, chat]) {
      const answer = await route({ use_beam_search: true });
      assert.equal(answer.status, 400);
      assert.deepEqual([answer.body.error!.param, answer.body.error!.code], ['use_beam_search', 'unknown_parameter']);
      assert.match(answer.body.error!.message, /unknown field use_beam_search/);
    }
  });

  it('renders without the generation prompt, or continues the final message, as vLLM does', async () => {
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'The answer is' },
    ];
    const prompt = async (extra: Record<string, unknown>) =>
      tokenizer.decode((await chat({ messages, return_token_ids: true, ...extra })).body.prompt_token_ids!);
    const continued = await prompt({ continue_final_message: true });
    assert.ok(continued.endsWith('The answer is'), continued);
    const closed = await prompt({ add_generation_prompt: false });
    assert.ok(closed.trimEnd().endsWith('<|im_end|>'), closed);
    assert.ok(!closed.trimEnd().endsWith('<|im_start|>assistant'));
    assert.ok((await prompt({})).trimEnd().endsWith('<|im_start|>assistant'));
    const both = await chat({ messages, continue_final_message: true, add_generation_prompt: true });
    assert.deepEqual([both.status, both.body.error!.param], [400, 'continue_final_message']);
  });
});
