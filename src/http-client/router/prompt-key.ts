/**
 * A key for a prompt's token ids, the same for the same ids: how the router finds the replica another
 * sample of the same prompt went to. Two 32-bit FNV lanes; a collision only places a request on a
 * replica without its prefix, never changes what it returns.
 */
export function promptKey(ids: readonly number[]): number {
  let a = 0x811c9dc5;
  let b = 0x27d4eb2f ^ ids.length;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    a = Math.imul(a ^ id, 0x01000193);
    b = Math.imul(b ^ id, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 2097152 + ((b >>> 0) >>> 11);
}
