/**
 * One output stream of a run, kept up to `limit` bytes. Past the limit it keeps nothing more and
 * reports the overflow once, so the caller can stop the program rather than buffer a flood.
 */
export class CappedOutput {
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #overflowed = false;

  constructor(
    private readonly limit: number,
    private readonly onOverflow: () => void,
  ) {}

  get truncated(): boolean {
    return this.#overflowed;
  }

  write(chunk: Buffer): void {
    if (this.#overflowed) return;
    const room = this.limit - this.#kept;
    if (chunk.length > room) {
      this.#chunks.push(chunk.subarray(0, room));
      this.#kept = this.limit;
      this.#overflowed = true;
      this.onOverflow();
      return;
    }
    this.#chunks.push(chunk);
    this.#kept += chunk.length;
  }

  /** The text kept, with a marker line when the stream was cut. */
  text(): string {
    const text = Buffer.concat(this.#chunks).toString('utf8');
    return this.#overflowed ? `${text}\n[gymnast: output truncated at ${this.limit} bytes]\n` : text;
  }
}
