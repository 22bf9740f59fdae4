/** The chain's root: the parent of a sequence's first block. */
export const ROOT_BLOCK_HASH = 0;

const TWO_32 = 4294967296;

/**
 * The hash of one full KV block: its tokens `ids[start … end)` and the hash of the block before it,
 * so two blocks hash alike only when their whole prefixes do (vLLM's content chain). 53 bits from two
 * independent 32-bit lanes: a collision among a million cached blocks has odds of about 1 in 10^4.
 */
export function blockHash(parent: number, ids: readonly number[], start: number, end: number): number {
  let a = Math.imul((parent / TWO_32) >>> 0, 0x9e3779b1) ^ 0x811c9dc5;
  let b = Math.imul(parent >>> 0, 0x85ebca77) ^ 0x27d4eb2f;
  for (let i = start; i < end; i++) {
    const id = ids[i]!;
    a = Math.imul(a ^ id, 0x01000193);
    b = Math.imul(b ^ id, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (finish(a) >>> 0) * 2097152 + (finish(b ^ (end - start)) >>> 11);
}

/** murmur3's finalizer: every input bit reaches every output bit. */
function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
