/** Text ↔ token ids. Implementations: `HfTokenizer` (HF `tokenizer.json`), `CharTokenizer`. */
export interface Tokenizer {
  /** Ids for `text`, with no special tokens added around it. */
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** Ids that end a generation by themselves (end of sequence, end of turn). */
  readonly stopTokenIds: readonly number[];
  /** One past the largest id (valid ids are `0 … vocabSize - 1`); absent when unknown. */
  readonly vocabSize?: number;
  /**
   * The most UTF-16 code units of input text one token can stand for, when the tokenizer can
   * promise a bound: then `encode(text).length >= ceil(text.length / maxCharsPerToken)`, so a server
   * can refuse text that cannot fit a context before paying to encode it. Absent when no bound holds
   * (an unknown-token that swallows a whole word, a normalizer that deletes characters).
   */
  readonly maxCharsPerToken?: number;
}
