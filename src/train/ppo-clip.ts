/** One token's PPO-clip loss and its derivative with respect to the token's current logprob. */
export interface ClippedToken {
  /** −min(r·A, clip(r, 1−ε, 1+ε)·A). */
  loss: number;
  /** d(loss)/d(logprob): −r·A, or 0 where the clip holds the objective flat. */
  derivative: number;
  /** The clip took this token's gradient away. */
  clipped: boolean;
}

/**
 * PPO's clipped surrogate for a token whose importance ratio is `ratio` (π/π_old, from the current
 * logprob and the recorded one) and whose advantage is `advantage`. The clip only binds in the
 * direction the advantage pushes: up past 1+ε for a positive advantage, down past 1−ε for a negative one.
 */
export function clippedToken(ratio: number, advantage: number, epsilon: number): ClippedToken {
  const clippedRatio = Math.min(Math.max(ratio, 1 - epsilon), 1 + epsilon);
  const unclipped = ratio * advantage;
  const bound = clippedRatio * advantage;
  const clipped = bound < unclipped;
  return { loss: -Math.min(unclipped, bound), derivative: clipped ? 0 : -unclipped, clipped };
}
