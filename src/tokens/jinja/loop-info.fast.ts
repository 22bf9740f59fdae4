// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
/** The interpreter's `loop` mapping, in its key order. */
export class LoopInfo {
  readonly index: number;
  readonly index0: number;
  readonly revindex: number;
  readonly revindex0: number;
  readonly first: boolean;
  readonly last: boolean;
  readonly length: number;
  readonly previtem: unknown;
  readonly nextitem: unknown;

  constructor(i: number, items: unknown[]) {
    const length = items.length;
    this.index = i + 1;
    this.index0 = i;
    this.revindex = length - i;
    this.revindex0 = length - i - 1;
    this.first = i === 0;
    this.last = i === length - 1;
    this.length = length;
    this.previtem = i > 0 ? items[i - 1] : undefined;
    this.nextitem = i < length - 1 ? items[i + 1] : undefined;
  }
}
