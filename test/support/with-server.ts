/** Anything that starts listening and closes: gymnast's HTTP servers. */
interface StartableServer {
  start(): Promise<string>;
  close(): Promise<void>;
}

/** Runs `run` against the started server, and closes it whatever happens. */
export async function withServer(server: StartableServer, run: (url: string) => Promise<void>): Promise<void> {
  const url = await server.start();
  try {
    await run(url);
  } finally {
    await server.close();
  }
}
