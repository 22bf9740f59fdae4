import type { Tokenizer } from '../../tokens/tokenizer.js';
import type { Generation } from './generator.js';

/** One sampled token and the text it added. */
export interface TokenPiece {
  tokenId: number;
  logprob: number | undefined;
  text: string;
}

/**
 * A finished generation cut back into its tokens, each with the text it added, for streaming: the
 * generator returns the whole generation at once, so a stream replays it token by token afterwards.
 * The pieces' texts join to exactly `generation.text`: a token whose text is not yet readable (half a
 * UTF-8 character, a hidden special token, text past a trimmed stop string) adds '' and its text comes
 * with a later token; whatever decoding token by token could not place comes with the last piece.
 */
export function tokenPieces(tokenizer: Tokenizer, generation: Generation): TokenPiece[] {
  const { text, tokenIds } = generation;
  const pieces: TokenPiece[] = [];
  let sent = 0;
  // Decoded from the last token whose text was placed, so each step decodes a few tokens, not the whole prefix.
  let from = 0;
  tokenIds.forEach((tokenId, index) => {
    const decoded = tokenizer.decode(tokenIds.slice(from, index + 1));
    const readable = decoded !== '' && !decoded.includes('\uFFFD') && text.startsWith(decoded, sent);
    pieces.push({ tokenId, logprob: generation.logprobs[index], text: readable ? decoded : '' });
    if (readable) {
      sent += decoded.length;
      from = index + 1;
    }
  });
  // The text is decoded from the ids, so there is a last piece whenever there is text left.
  const last = pieces.at(-1);
  if (last) last.text += text.slice(sent);
  return pieces;
}
