/**
 * `promise`, or a failure naming `what` when it has not settled within `ms`. For a wait on a real
 * deadline or connection: `ms` is a bound no loaded machine comes near, so a broken guard fails the
 * spec instead of hanging it, and a slow machine never does.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}
