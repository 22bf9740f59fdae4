/**
 * The lockstep schedule's barrier: nobody starts turn t+1 until every active episode has finished
 * turn t (NeMo RL's synchronous rollout). An episode that ends leaves, so the rest never wait for it.
 */
export class TurnBarrier {
  #active: number;
  #waiting: (() => void)[] = [];

  constructor(participants: number) {
    this.#active = participants;
  }

  arrive(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#releaseWhenAllArrived();
    });
  }

  leave(): void {
    this.#active -= 1;
    this.#releaseWhenAllArrived();
  }

  #releaseWhenAllArrived(): void {
    if (this.#waiting.length === 0 || this.#waiting.length < this.#active) return;
    const released = this.#waiting;
    this.#waiting = [];
    for (const resolve of released) resolve();
  }
}
