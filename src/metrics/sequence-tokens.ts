/**
 * How long a rollout's token sequence is: every message's token ids, the prompt, the generations and
 * the observations as put on the sequence (after any cut to fit). It is the length NeMo RL gets by
 * flattening the message log, the one its `test_max_seqlen_respected` holds to `max_seq_len`. Messages
 * are taken as a row holds them, unchecked (they hold thousands of numbers a row): only arrays count,
 * and the `token_count` of a message whose ids the row stores on `response.output` (`compactRowTokens`).
 */
export function sequenceTokens(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let tokens = 0;
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { token_ids: tokenIds, token_count: count } = message as { token_ids?: unknown; token_count?: unknown };
    if (Array.isArray(tokenIds)) tokens += tokenIds.length;
    else if (Number.isSafeInteger(count) && (count as number) >= 0) tokens += count as number;
  }
  return tokens;
}
