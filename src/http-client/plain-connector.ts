import { connect, type Socket, type TcpNetConnectOpts } from 'node:net';
import type { buildConnector } from 'undici';

/** undici's defaults, kept: how long a connection may take, and TCP keep-alive probes after a minute idle. */
const CONNECT_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_DELAY_MS = 60_000;

/**
 * Opens plain-HTTP connections for an undici pool as undici's own connector does (net.connect, TCP
 * keep-alive, no Nagle delay, a 10 s connect timeout worded as undici's `Connect Timeout Error`), but
 * lets go of what only the connect needed once connected. undici's keeps an `error` listener on the
 * socket for the connection's whole life, whose closure holds its connect timeout's timer, a weak
 * reference and the connect options: ~500 bytes per connection, one per request in flight (issue 26).
 * Only one shared listener stays, which ignores what undici's own listeners, added once the pool takes
 * the socket, then handle: as undici's did after the connect, and an `error` event with no listener
 * would end the process.
 */
export const plainConnector: buildConnector.connector = ({ hostname, port, localAddress }, callback) => {
  // undici's read buffer, as fs streams have: Node's types leave the option out, net.connect takes it.
  const options: TcpNetConnectOpts & { highWaterMark: number } = { highWaterMark: 64 * 1024, port: Number(port || 80), host: hostname };
  if (localAddress) options.localAddress = localAddress;
  const socket = connect(options);
  socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
  socket.setNoDelay(true);
  const timer = setTimeout(() => socket.destroy(connectTimeoutError(socket, hostname, port)), CONNECT_TIMEOUT_MS);
  const settle = (error: Error | undefined) => {
    clearTimeout(timer);
    socket.off('connect', onConnect).off('error', settle).on('error', ignoreError);
    if (error) callback(error, null);
    else callback(null, socket);
  };
  const onConnect = () => settle(undefined);
  socket.once('connect', onConnect).once('error', settle);
};

/** The socket's errors once connected are undici's to handle (its listeners see them too). */
function ignoreError(): void {}

/** undici's wording (its `ConnectTimeoutError`, code `UND_ERR_CONNECT_TIMEOUT`): the addresses tried, or the host and port. */
function connectTimeoutError(socket: Socket, hostname: string, port: string): Error {
  const tried = (socket as Socket & { autoSelectFamilyAttemptedAddresses?: string[] }).autoSelectFamilyAttemptedAddresses;
  const address = Array.isArray(tried) ? `addresses: ${tried.join(', ')}` : `address: ${hostname}:${port || 80}`;
  return Object.assign(new Error(`Connect Timeout Error (attempted ${address}, timeout: ${CONNECT_TIMEOUT_MS}ms)`), {
    name: 'ConnectTimeoutError',
    code: 'UND_ERR_CONNECT_TIMEOUT',
  });
}
