import { PolicyError } from './policy-error.js';

/** The prompt leaves no room to generate within the model's context: the episode ends as `max-seq-len`, not as a failure. */
export class ContextLengthError extends PolicyError {
  override readonly kind = 'context-length';
  readonly promptTokens: number;
  readonly maxModelLen: number;

  constructor(promptTokens: number, maxModelLen: number, detail?: string) {
    super(detail ?? `the prompt is ${promptTokens} tokens, leaving no room in the model's context of ${maxModelLen}`);
    this.promptTokens = promptTokens;
    this.maxModelLen = maxModelLen;
  }
}
