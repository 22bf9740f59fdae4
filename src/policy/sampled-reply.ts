/** A list in a reply, with where it is, to name an entry in an error (`choices[0].token_ids[3]`). */
export interface ReplyList<T> {
  readonly values: readonly T[];
  /** Where the list is, e.g. `choices[0].token_ids`. */
  readonly path: string;
  /** Where its entry `index` is. */
  at(index: number): string;
}

/** A list of a reply whose entries sit at `path[i]`, or wherever `at` says (SGLang's `[logprob, id, text]` tuples). */
export function replyList<T>(values: readonly T[], path: string, at: (index: number) => string = (index) => `${path}[${index}]`): ReplyList<T> {
  return { values, path, at };
}

/**
 * What the sampler produced, where a backend's reply carries it. Checked against the model's
 * vocabulary (`sampledReplyProblem`) before the reply is used, whichever API it came through.
 */
export interface SampledReply {
  readonly tokenIds: ReplyList<number>;
  /** The sampled token's logprob for each id; null where the server sent none. */
  readonly logprobs: ReplyList<number | null>;
  /**
   * The ids again, where a reply carries them twice (chat logprobs' `token_id:N` labels, SGLang's
   * `output_ids`): both must agree. Undefined where an entry names no id.
   */
  readonly tokenIdsAgain?: ReplyList<number | undefined>;
  readonly text: string;
  readonly textPath: string;
  /**
   * How the text relates to the ids. `decoded`: it is their decoded text, possibly cut inside their
   * last few tokens (token-in APIs, asked to keep special tokens and stop strings). `within-decoded`:
   * it is found in their decoded text, as a chat server's reasoning or tool-call parser may move
   * parts of the text out of `content`.
   */
  readonly textIs: 'decoded' | 'within-decoded';
}
