/** Text ↔ token ids. Implementations: `HfTokenizer` (HF `tokenizer.json`), `CharTokenizer`. */
export interface Tokenizer {
  /** Ids for `text`, with no special tokens added around it. */
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** Ids that end a generation by themselves (end of sequence, end of turn). */
  readonly stopTokenIds: readonly number[];
}
