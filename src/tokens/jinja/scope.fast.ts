// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
/**
 * A scope: its own names, then the enclosing scope's. The names are kept in a Map rather than on
 * objects chained by prototype: every render turned fresh objects into prototypes, V8 gives each
 * prototype a hidden class of its own, so no lookup ever met a shape it had seen, and making them
 * was a good part of a render's garbage (issue 13).
 */
export class Scope {
  readonly #names = new Map<string, unknown>();
  readonly #enclosing: Scope | undefined;

  constructor(enclosing?: Scope) {
    this.#enclosing = enclosing;
  }

  /** The value of the nearest scope that has the name (a name set to undefined hides outer ones); undefined when none has it. */
  lookup(name: string): unknown {
    for (let scope: Scope | undefined = this; scope !== undefined; scope = scope.#enclosing) {
      const value = scope.#names.get(name);
      if (value !== undefined || scope.#names.has(name)) return value;
    }
    return undefined;
  }

  /** Sets the name in this scope, hiding the enclosing scopes' (a `set` inside a loop stays in the loop). */
  assign(name: string, value: unknown): void {
    this.#names.set(name, value);
  }

  /** Whether this scope itself has the name. */
  has(name: string): boolean {
    return this.#names.has(name);
  }
}
