/** Runs an async generator to its end, dropping what it yields, and returns what it returns. */
export async function drain<R>(generator: AsyncIterator<unknown, R>): Promise<R> {
  for (let step = await generator.next(); ; step = await generator.next()) if (step.done) return step.value;
}
