/** Waits for Ctrl-C (or SIGTERM), then closes what a serve command started; resolves once it is closed. */
export function untilSignalled(...servers: { close(): Promise<void> }[]): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => void Promise.all(servers.map((server) => server.close())).then(() => resolve());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
