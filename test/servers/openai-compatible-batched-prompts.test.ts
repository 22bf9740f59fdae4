import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { qwen3Tokenizer, startQwen3Server } from '../support/qwen3.js';

const tokenizer = await qwen3Tokenizer();
const { url } = await startQwen3Server();

interface Choice {
  index: number;
  text: string;
  token_ids: number[];
  prompt_token_ids: number[];
}
interface Answer {
  status: number;
  body: { choices?: Choice[]; usage?: { prompt_tokens: number; completion_tokens: number }; error?: { message: string; param: string | null } };
}

async function complete(prompt: unknown, extra: Record<string, unknown> = {}): Promise<Answer> {
  const response = await fetch(`${url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, max_tokens: 8, seed: 5, return_token_ids: true, ...extra }),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const texts = ['What is 2+2?', 'Name a colour.', 'Say hi.'];

describe('completions over a batch of prompts', () => {
  it('answers a list of texts with one choice per prompt, in order, each as that prompt alone would be answered', async () => {
    const batch = await complete(texts);
    assert.equal(batch.status, 200);
    assert.deepEqual(
      batch.body.choices!.map((choice) => choice.index),
      [0, 1, 2],
    );
    for (const [i, text] of texts.entries()) {
      const alone = (await complete(text)).body.choices![0]!;
      assert.deepEqual({ ...batch.body.choices![i]!, index: 0 }, alone);
    }
    const alone = await Promise.all(texts.map((text) => complete(text)));
    assert.equal(
      batch.body.usage!.prompt_tokens,
      alone.reduce((sum, answer) => sum + answer.body.usage!.prompt_tokens, 0),
    );
    assert.equal(
      batch.body.usage!.completion_tokens,
      alone.reduce((sum, answer) => sum + answer.body.usage!.completion_tokens, 0),
    );
  });

  it('answers a list of token id lists the same way, each choice carrying its own prompt ids', async () => {
    const ids = texts.map((text) => tokenizer.encode(text));
    const batch = await complete(ids);
    assert.deepEqual(
      batch.body.choices!.map((choice) => choice.prompt_token_ids),
      ids,
    );
    assert.deepEqual(
      batch.body.choices!.map((choice) => choice.text),
      (await complete(texts)).body.choices!.map((choice) => choice.text),
    );
  });

  it('gives n choices per prompt, the n of the first prompt first', async () => {
    const batch = await complete(texts.slice(0, 2), { n: 2 });
    assert.deepEqual(
      batch.body.choices!.map((choice) => [choice.index, choice.prompt_token_ids.join()]),
      [
        [0, tokenizer.encode(texts[0]!).join()],
        [1, tokenizer.encode(texts[0]!).join()],
        [2, tokenizer.encode(texts[1]!).join()],
        [3, tokenizer.encode(texts[1]!).join()],
      ],
    );
  });

  it('refuses a bad prompt in a batch naming which one, and an empty one', async () => {
    const bad = await complete([
      [1, 2],
      [3, -4],
    ]);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error!.message, /prompt\[1\]\[1\] is -4/);
    assert.equal(bad.body.error!.param, 'prompt[1]');
    for (const empty of [[], [[]], ['']]) assert.match((await complete(empty)).body.error!.message, /prompt is empty/, JSON.stringify(empty));
  });
});
