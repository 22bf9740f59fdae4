/** `compute()`, computed on the first call and kept. */
export function once<T>(compute: () => T): () => T {
  let result: { value: T } | undefined;
  return () => (result ??= { value: compute() }).value;
}
