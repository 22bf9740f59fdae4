// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
/**
 * `{% break %}` and `{% continue %}` unwind to their loop as thrown signals: a body is a chain of
 * closures with no other way to stop early. Compared by identity, never caught as errors elsewhere.
 */
export const BREAK = { control: 'break' };
export const CONTINUE = { control: 'continue' };
