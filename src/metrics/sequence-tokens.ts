/**
 * How long a rollout's token sequence is: every message's token ids, the prompt, the generations and
 * the observations as put on the sequence (after any cut to fit). It is the length NeMo RL gets by
 * flattening the message log, the one its `test_max_seqlen_respected` holds to `max_seq_len`. Messages
 * are taken as a row holds them, unchecked (they hold thousands of numbers a row): only arrays count.
 */
export function sequenceTokens(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let tokens = 0;
  for (const message of messages) {
    const tokenIds: unknown = typeof message === 'object' && message !== null ? (message as { token_ids?: unknown }).token_ids : undefined;
    if (Array.isArray(tokenIds)) tokens += tokenIds.length;
  }
  return tokens;
}
