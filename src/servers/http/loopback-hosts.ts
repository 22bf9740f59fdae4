import { isIPv4, isIPv6 } from 'node:net';

/**
 * The `Host` values (`name:port`) a server bound to loopback answers, or undefined (any) when it is
 * bound beyond loopback. DNS rebinding: a page of another site can point its own name at 127.0.0.1
 * and then read a loopback server's answers as its own, but the browser still sends the name it
 * asked for in `Host`, so a server that answers only loopback's own names cannot be read that way.
 * Bound to another interface (`--host`), the names people reach it by are not known here: an API
 * key is what guards it then.
 */
export function loopbackHosts(boundHost: string, port: number): readonly string[] | undefined {
  if (!isLoopback(boundHost)) return undefined;
  const bound = isIPv6(boundHost) ? `[${boundHost}]` : boundHost.toLowerCase();
  return [...new Set(['127.0.0.1', 'localhost', '[::1]', bound])].map((name) => `${name}:${port}`);
}

/** Whether a request's `Host` header is one of `hosts`: names compare case-insensitively, no port is port 80 (as browsers send it), no header is no match. */
export function isLoopbackHost(header: string | undefined, hosts: readonly string[]): boolean {
  if (header === undefined) return false;
  const host = header.toLowerCase();
  return hosts.includes(/:\d+$/.test(host) ? host : `${host}:80`);
}

function isLoopback(host: string): boolean {
  const bare = host.toLowerCase().replace(/^::ffff:/, '');
  return bare === 'localhost' || bare === '::1' || (isIPv4(bare) && bare.startsWith('127.'));
}
