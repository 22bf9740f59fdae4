import { isIPv4, isIPv6 } from 'node:net';

/**
 * The host names a server bound to loopback answers to, or undefined (any) when it is bound beyond
 * loopback. DNS rebinding: a page of another site can point its own name at 127.0.0.1 and then read
 * a loopback server's answers as its own, but the browser still sends the name it asked for in
 * `Host`, so a server that answers only loopback's own names cannot be read that way. The port is not
 * compared: a tunnel (`ssh -L 9000:localhost:8000`, `kubectl port-forward`) sends its own local port,
 * and the name alone is what rebinding cannot fake. Bound to another interface (`--host`), the names
 * people reach it by are not known here: an API key is what guards it then.
 */
export function loopbackNames(boundHost: string): readonly string[] | undefined {
  if (!isLoopback(boundHost)) return undefined;
  const bound = isIPv6(boundHost) ? `[${boundHost}]` : boundHost.toLowerCase();
  return [...new Set(['127.0.0.1', 'localhost', '[::1]', bound])];
}

/** Whether a request's `Host` header names one of `names`, at any port; names compare case-insensitively, no header is no match. */
export function isLoopbackHost(header: string | undefined, names: readonly string[]): boolean {
  if (header === undefined) return false;
  return names.includes(header.toLowerCase().replace(/:\d*$/, ''));
}

/** Why a request naming `host` is refused by a server answering only `names`, and how to reach it otherwise. */
export function misdirectedMessage(host: string | undefined, names: readonly string[]): string {
  const listed = `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `refused Host ${host === undefined ? '(none)' : JSON.stringify(host)}: a gymnast server bound to loopback answers only to ${listed} (at any port), so that no page of another site can read it through a name of its own pointed at this machine (DNS rebinding); to reach it by another name, bind it to that interface with --host (and give it --api-key)`;
}

function isLoopback(host: string): boolean {
  const bare = host.toLowerCase().replace(/^::ffff:/, '');
  return bare === 'localhost' || bare === '::1' || (isIPv4(bare) && bare.startsWith('127.'));
}
