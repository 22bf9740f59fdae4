import type { Message } from '../core/message.js';
import type { Tokenizer } from './tokenizer.js';

/** A run of tokens on the sequence: sampled by the policy (trained on) or rendered around it (not). */
export interface TokenSegment {
  /** `sampled` for generated assistant turns; otherwise the role of the message it renders. */
  kind: 'sampled' | Message['role'];
  token_ids: readonly number[];
  /** The sampler's logprobs, on sampled segments only. */
  logprobs?: readonly number[];
}

/**
 * The token sequence of an episode, append-only: what is on it never changes. Keeps the decoded text
 * alongside, so rendering the next turn never decodes the whole sequence again.
 */
export class TokenLedger {
  /**
   * A new array per append, exactly as long as its segments (`concat`: one grown by `push` from empty,
   * or spread with one more, has room for 17 or more), ~130 bytes less on every episode in flight,
   * most of which have one to three (issue 26).
   */
  #segments: readonly TokenSegment[] = [];
  readonly #tokenizer: Tokenizer;
  /**
   * Every id on the sequence, in order. Each append makes a new array (of exactly the sequence's
   * length), so one handed out by `tokenIds()` never changes: a request in flight shares it instead of
   * holding a copy of the whole sequence (issue 26).
   */
  #ids: readonly number[] = [];
  #text = '';
  /** Segments from here on are not in `#text` yet: most of an episode's text is never read (issue 13). */
  #decodedSegments = 0;

  constructor(tokenizer: Tokenizer) {
    this.#tokenizer = tokenizer;
  }

  /** Appends a message's tokens as one segment (sampled when it carries generation logprobs). */
  appendMessage(message: Message): void {
    const ids = message.token_ids ?? [];
    if (ids.length === 0) return;
    const sampled = message.generation_logprobs !== undefined;
    const segment: TokenSegment = sampled ? { kind: 'sampled', token_ids: ids, logprobs: message.generation_logprobs } : { kind: message.role, token_ids: ids };
    this.#segments = this.#segments.concat([segment]);
    this.#ids = this.#ids.concat(ids);
  }

  get length(): number {
    return this.#ids.length;
  }

  /** The sequence decoded, special tokens included: each segment decoded on its own, when the text is first read. */
  get text(): string {
    // Counted only once decoded: a decode that throws leaves its segment to be read again, not lost.
    while (this.#decodedSegments < this.#segments.length) {
      this.#text += this.#tokenizer.decode(this.#segments[this.#decodedSegments]!.token_ids);
      this.#decodedSegments += 1;
    }
    return this.#text;
  }

  get segments(): readonly TokenSegment[] {
    return this.#segments;
  }

  /** The sequence's ids, which never change once handed out (see `#ids`). */
  tokenIds(): readonly number[] {
    return this.#ids;
  }

  /** 1 on sampled tokens, 0 elsewhere: what a trainer computes its loss on (NeMo RL's `token_loss_mask`). */
  lossMask(): number[] {
    return this.#segments.flatMap((segment) => segment.token_ids.map(() => (segment.kind === 'sampled' ? 1 : 0)));
  }

  /** The sampler's logprob on sampled tokens, 0 elsewhere (NeMo RL's `generation_logprobs` layout). */
  logprobs(): number[] {
    return this.#segments.flatMap((segment) => segment.logprobs ?? segment.token_ids.map(() => 0));
  }

  /** A ledger holding the tokens of a message log (e.g. a record read back from disk). */
  static fromMessages(tokenizer: Tokenizer, messages: readonly Message[]): TokenLedger {
    const ledger = new TokenLedger(tokenizer);
    for (const message of messages) ledger.appendMessage(message);
    return ledger;
  }
}
