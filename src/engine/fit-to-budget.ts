import type { Message } from '../core/message.js';
import { extensibleCopy } from '../util/extensible-copy.js';

export interface FittedMessages {
  messages: Message[];
  tokenCount: number;
  /** Some tokens were cut to fit. */
  truncated: boolean;
}

/**
 * Attaches rendered token ids to their messages, keeping at most `budget` tokens in order: the message
 * where the budget runs out is cut, later ones keep their text with no tokens (the log still shows what
 * was said; the sequence holds exactly `budget` tokens).
 */
export function fitToBudget(messages: readonly Message[], tokenIds: readonly number[][], budget: number): FittedMessages {
  let remaining = Math.max(0, budget);
  let truncated = false;
  const fitted = messages.map((message, i) => {
    const ids = tokenIds[i] ?? [];
    const kept = ids.length <= remaining ? ids : ids.slice(0, remaining);
    if (kept.length < ids.length) truncated = true;
    remaining -= kept.length;
    return extensibleCopy(message, { token_ids: kept });
  });
  return { messages: fitted, tokenCount: Math.max(0, budget) - remaining, truncated };
}
