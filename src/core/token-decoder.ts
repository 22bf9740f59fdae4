/**
 * What a reader of rows needs of a tokenizer to show or check token text: any `Tokenizer` of
 * src/tokens is one. Kept this narrow so layers that may not import tokens (metrics, the viewer) can
 * take one.
 */
export interface TokenDecoder {
  decode(ids: readonly number[]): string;
  /** One past the largest id (valid ids are `0 … vocabSize - 1`); absent when unknown. */
  readonly vocabSize?: number;
}
