import type { Tokenizer } from '../tokens/tokenizer.js';
import type { SampledReply } from './sampled-reply.js';

/**
 * Tokens at the end of the ids whose text a server may leave out of its text: a stop string that ends
 * inside the last token (vLLM cuts the text right after it), and a character whose bytes are split over
 * byte tokens, held back with the tokens it shares until it is complete (vLLM's incremental
 * detokenizer does not flush it when the generation ends): at most 4 bytes, so at most 4 tokens.
 */
const HELD_BACK_TOKENS = 4;

/** Characters of text shown either side of where the decoded ids and the text part. */
const SHOWN = 24;

/**
 * What makes a reply one the sampler could not have produced, or undefined when it could have: ids
 * that are not whole numbers in `[0, vocabSize)`, a logprob per id that is a finite number ≤ 0, the two
 * copies of the ids a reply may carry agreeing, and ids that decode to the text. The problem names the
 * reply's field and value (`choices[0].token_ids[3] = 151999 is outside the vocabulary [0, 151669)`).
 */
export function sampledReplyProblem(reply: SampledReply, tokenizer: Tokenizer): string | undefined {
  return countProblem(reply) ?? idProblem(reply, tokenizer.vocabSize) ?? logprobProblem(reply) ?? idsAgainProblem(reply) ?? textProblem(reply, tokenizer);
}

function countProblem({ tokenIds, logprobs }: SampledReply): string | undefined {
  if (tokenIds.values.length === logprobs.values.length) return undefined;
  return `${tokenIds.path} has ${tokenIds.values.length} token ids but ${logprobs.path} has ${logprobs.values.length} logprobs: there is one logprob per sampled token`;
}

function idProblem({ tokenIds }: SampledReply, vocabSize: number | undefined): string | undefined {
  const { values } = tokenIds;
  for (let index = 0; index < values.length; index++) {
    const id = values[index]!;
    if (Number.isInteger(id) && id >= 0 && (vocabSize === undefined || id < vocabSize)) continue;
    const range = vocabSize === undefined ? 'not a token id (a whole number ≥ 0)' : `outside the vocabulary [0, ${vocabSize})`;
    return `${tokenIds.at(index)} = ${id} is ${range}`;
  }
  return undefined;
}

function logprobProblem({ logprobs }: SampledReply): string | undefined {
  const { values } = logprobs;
  for (let index = 0; index < values.length; index++) {
    const logprob = values[index];
    if (typeof logprob === 'number' && Number.isFinite(logprob) && logprob <= 0) continue;
    return `${logprobs.at(index)} = ${String(logprob)} is not a log-probability (a finite number ≤ 0)`;
  }
  return undefined;
}

function idsAgainProblem({ tokenIds, tokenIdsAgain: again }: SampledReply): string | undefined {
  if (again === undefined) return undefined;
  if (again.values.length !== tokenIds.values.length)
    return `${tokenIds.path} has ${tokenIds.values.length} token ids but ${again.path} has ${again.values.length}`;
  for (let index = 0; index < again.values.length; index++) {
    const id = again.values[index];
    if (id === undefined || id === tokenIds.values[index]) continue;
    return `${tokenIds.at(index)} = ${tokenIds.values[index]} but ${again.at(index)} says ${id}: two ids for one sampled token`;
  }
  return undefined;
}

function textProblem(reply: SampledReply, tokenizer: Tokenizer): string | undefined {
  const ids = reply.tokenIds.values;
  const decoded = tokenizer.decode(ids);
  if (decoded === reply.text) return undefined;
  // Decoded alone, the first token may lose a leading space that the server, decoding in the prompt's
  // context, keeps (SentencePiece tokenizers): leading whitespace is not compared.
  const [whole, text] = [decoded.trimStart(), reply.text.trimStart()];
  const matches = reply.textIs === 'decoded' ? isDecodedText(whole, text, ids, tokenizer) : whole.includes(text);
  if (matches) return undefined;
  let at = 0;
  while (at < whole.length && whole[at] === text[at]) at++;
  const from = Math.max(0, at - SHOWN);
  const shown = (part: string) => JSON.stringify(`${from > 0 ? '…' : ''}${part.slice(from, at + SHOWN)}${part.length > at + SHOWN ? '…' : ''}`);
  const how = reply.textIs === 'decoded' ? `they part at character ${at}` : 'the text is not in them';
  return `${reply.textPath} is not the text of ${reply.tokenIds.path}: ${how}; the ids decode to ${shown(whole)}, the text is ${shown(text)}`;
}

/**
 * The text is the decoded ids, or stops short of them inside their last tokens (see
 * `HELD_BACK_TOKENS`): only then are the ids before the last few decoded again, for the text to cover.
 * Both come without leading whitespace.
 */
function isDecodedText(whole: string, text: string, ids: readonly number[], tokenizer: Tokenizer): boolean {
  if (whole === text) return true;
  if (!whole.startsWith(text)) return false;
  // A character split where the last tokens begin decodes as U+FFFD in the ids before them: not text they cover.
  const covered = tokenizer
    .decode(ids.slice(0, -HELD_BACK_TOKENS))
    .replace(/\uFFFD+$/, '')
    .trimStart();
  return text.startsWith(covered);
}
