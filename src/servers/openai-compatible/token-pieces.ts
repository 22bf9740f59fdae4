import type { Tokenizer } from '../../tokens/tokenizer.js';
import type { GenerationRequest } from './generator.js';

/** One sampled token and the text it added. */
export interface TokenPiece {
  tokenId: number;
  logprob: number;
  text: string;
}

/**
 * Cuts a generation's text into per-token pieces as its tokens come, for streaming. A piece carries
 * only text the finished answer is sure to begin with, so the pieces' texts join to exactly its text:
 * a token whose text is not yet readable (half a UTF-8 character, a hidden special token, what may be
 * the start of a stop string the answer will trim) adds '' and its text comes with a later token, and
 * `rest` gives what is left once the answer is known. Each token is decoded in a window from the last
 * readable one, as vLLM's incremental detokenizer does: a few tokens' work, and the spaces a decoder
 * puts between tokens are kept. Like vLLM's, it relies on decoding being prefix-stable beyond an
 * unfinished character (true of byte-level BPE and of the embedded model's characters).
 */
export class TokenPieces {
  readonly #tokenizer: Tokenizer;
  readonly #hidden: ReadonlySet<number>;
  /** Stop strings the answer trims: text that may begin one waits until it cannot. */
  readonly #trimmed: readonly string[];
  readonly #holdBack: number;
  /** The ids whose text the answer shows. */
  readonly #visible: number[] = [];
  /** Where the decoding window starts: the first id of the last readable stretch. */
  #from = 0;
  /** How many visible ids' text is in `#decoded`. */
  #read = 0;
  #decoded = '';
  /** How much of `#decoded` the pieces have carried. */
  #sent = 0;

  constructor(tokenizer: Tokenizer, request: GenerationRequest) {
    this.#tokenizer = tokenizer;
    this.#hidden = new Set(request.skipSpecialTokens ? [...tokenizer.stopTokenIds, ...request.stopTokenIds] : []);
    this.#trimmed = request.includeStopString ? [] : request.stop;
    this.#holdBack = Math.max(0, ...this.#trimmed.map((stop) => stop.length - 1));
  }

  /** The piece of a token just sampled, with the text it lets the stream send now. */
  next(tokenId: number, logprob: number): TokenPiece {
    if (!this.#hidden.has(tokenId)) {
      this.#visible.push(tokenId);
      this.#decode();
    }
    return { tokenId, logprob, text: this.#release() };
  }

  /** What the pieces have not carried of `text`, the finished answer's text. */
  rest(text: string): string {
    return text.slice(this.#sent);
  }

  #decode(): void {
    const before = this.#tokenizer.decode(this.#visible.slice(this.#from, this.#read));
    const now = this.#tokenizer.decode(this.#visible.slice(this.#from));
    if (now.length <= before.length || now.endsWith('\uFFFD') || !now.startsWith(before)) return;
    this.#decoded += now.slice(before.length);
    this.#from = this.#read;
    this.#read = this.#visible.length;
  }

  /** The decoded text no trimmed stop string can still claim. */
  #release(): string {
    let end = this.#decoded.length - this.#holdBack;
    // A stop string starts after what was sent: its first characters were held back until it could not be one.
    for (const stop of this.#trimmed) {
      const at = this.#decoded.indexOf(stop, this.#sent);
      if (at >= 0) end = Math.min(end, at);
    }
    // Never half of a surrogate pair.
    if (end > this.#sent && isHighSurrogate(this.#decoded.charCodeAt(end - 1))) end -= 1;
    if (end <= this.#sent) return '';
    const text = this.#decoded.slice(this.#sent, end);
    this.#sent = end;
    return text;
  }
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
