import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The kernel's range of ports for outgoing connections when it cannot be read (IANA's, macOS's and Windows'). */
const DEFAULT_EPHEMERAL_LOW = 49_152;
/** How far below the ephemeral range ports are picked, and never below the privileged ones. */
const SPAN = 16_384;
const LOWEST = 1_024;
const ATTEMPTS = 32;

/**
 * The lowest port the kernel hands to outgoing connections (Linux: `ip_local_port_range`, 32768 by
 * default). A port picked free inside that range can be taken by any connection made before the
 * server listens on it: a busy machine (a test suite, a collect) does so within a second.
 */
export function ephemeralPortLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST ? low : DEFAULT_EPHEMERAL_LOW;
  } catch {
    return DEFAULT_EPHEMERAL_LOW;
  }
}

/**
 * A port free on `host` now, for a server that listens on it later (a config's ports are all known
 * before any server starts). It is picked below the ephemeral range, where only a process listening
 * on that very port can take it meanwhile; when none there is free, any free port.
 */
export async function pickFreePort(host: string): Promise<number> {
  const high = ephemeralPortLow() - 1;
  const low = Math.max(LOWEST, high - SPAN + 1);
  for (let attempt = 0; attempt < ATTEMPTS && high > low; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if ((await tryListen(host, port)) !== undefined) return port;
  }
  const any = await tryListen(host, 0);
  if (any === undefined) throw new Error(`no free port on ${host}`);
  return any;
}

/** The port a probe could listen on (then closed), or undefined when that port is taken. */
function tryListen(host: string, port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(undefined) : reject(error)));
    probe.listen(port, host, () => {
      const bound = (probe.address() as { port: number }).port;
      probe.close(() => resolve(bound));
    });
  });
}
