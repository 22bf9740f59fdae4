// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import { UnsupportedConstructError } from './unsupported-construct-error.fast.js';

/**
 * Why a render went to the interpreter: the template did not compile, the compiled render declined
 * a value it does not reproduce, or the compiled render threw (the template's own error, which the
 * interpreter then raises too, or a compiler bug).
 */
export interface FallbackReason {
  kind: 'not-compiled' | 'render-declined' | 'render-threw';
  detail: string;
}

/** Why a template that did not compile is rendered by the interpreter every time. */
export function notCompiledReason(error: unknown): FallbackReason {
  return { kind: 'not-compiled', detail: errorText(error) };
}

/** Why one render of a compiled template went to the interpreter. */
export function renderFailedReason(error: unknown): FallbackReason {
  return { kind: error instanceof UnsupportedConstructError ? 'render-declined' : 'render-threw', detail: errorText(error) };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Counts one template's renders left to the interpreter. The fallback keeps the text right, so a
 * compiler bug would otherwise show only as a slowdown; with GYMNAST_DEBUG=1 the first fallback
 * writes one line to stderr (not one per render: a template that falls back usually does so every time).
 */
export class InterpreterFallbacks {
  #count = 0;
  #first: FallbackReason | undefined;

  get count(): number {
    return this.#count;
  }

  /** The reason of the first fallback, undefined while the compiled template rendered every time. */
  get first(): FallbackReason | undefined {
    return this.#first;
  }

  record(reason: FallbackReason): void {
    this.#count += 1;
    if (this.#first !== undefined) return;
    this.#first = reason;
    if (process.env.GYMNAST_DEBUG === '1') {
      process.stderr.write(`gymnast: a chat template is rendered by the @huggingface/jinja interpreter (${reason.kind}): ${reason.detail}\n`);
    }
  }
}
