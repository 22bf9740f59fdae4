// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
/**
 * A construct or value the compiled renderer does not reproduce exactly. Thrown at compile time (the
 * template is then always rendered by @huggingface/jinja's interpreter) or at render time (that
 * render falls back to the interpreter). Internal: never surfaces to callers of `JinjaChatTemplate`.
 */
export class UnsupportedConstructError extends Error {
  override readonly name = 'UnsupportedConstructError';

  constructor(construct: string) {
    super(`the compiled chat template does not support ${construct}`);
  }
}

export function unsupported(construct: string): never {
  throw new UnsupportedConstructError(construct);
}
