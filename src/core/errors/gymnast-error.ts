const marker = Symbol.for('gymnast.error');

/**
 * The base of every error gymnast throws. `kind` is stable across releases: match on it, not on
 * class identity or message text (two copies of the package in one process still agree on it).
 */
export abstract class GymnastError extends Error {
  abstract readonly kind: string;
  readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  static isInstance(value: unknown): value is GymnastError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}
