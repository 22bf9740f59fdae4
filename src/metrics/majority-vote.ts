/**
 * NeMo Gym's majority vote for one task, one rollout at a time: the most common (answer, score) pair
 * among the rollouts with an answer so far, the scores of tied pairs averaged, 0 when none has an
 * answer. Counts only grow, so the tie set changes only when a pair reaches or passes the top count.
 */
export class MajorityVote {
  readonly #counts = new Map<string, number>();
  #top = 0;
  #tiedSum = 0;
  #tiedCount = 0;

  reset(): void {
    this.#counts.clear();
    this.#top = 0;
    this.#tiedSum = 0;
    this.#tiedCount = 0;
  }

  /** One rollout with an answer (as a number: equal answers, equal numbers) and its score. */
  add(answer: number, score: number): void {
    const pair = `${answer}:${score}`;
    const count = (this.#counts.get(pair) ?? 0) + 1;
    this.#counts.set(pair, count);
    if (count > this.#top) {
      this.#top = count;
      this.#tiedSum = score;
      this.#tiedCount = 1;
    } else if (count === this.#top) {
      this.#tiedSum += score;
      this.#tiedCount += 1;
    }
  }

  score(): number {
    return this.#tiedCount === 0 ? 0 : this.#tiedSum / this.#tiedCount;
  }
}
