import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { JsonClient, type JsonClientOptions } from '../../src/http-client/json-client.js';

/** A request as the raw server read it. */
export interface RawRequest {
  line: string;
  head: string;
  body: string;
  socket: Socket;
  /** This connection's number, from 1, in the order the server accepted them. */
  connection: number;
}

export interface RawServerOptions {
  /** Where it listens (default 127.0.0.1; `::1` for IPv6). */
  host?: string;
  /** Sees a request's head before its body has all come; true when it has answered (the body is then not read). */
  onHead?: (head: string, socket: Socket) => boolean;
}

/**
 * A loopback server that answers with bytes written by hand, so a spec can send what node:http never
 * would: odd framings, answers split anywhere, extra bytes, early closes. `answer` writes to the socket.
 */
export async function rawServer(answer: (request: RawRequest) => void, options: RawServerOptions = {}) {
  const host = options.host ?? '127.0.0.1';
  let connections = 0;
  let mostOpen = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const connection = ++connections;
    sockets.add(socket);
    mostOpen = Math.max(mostOpen, sockets.size);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    let headSeen = false;
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.toString('latin1', 0, end);
        if (!headSeen && options.onHead) {
          headSeen = true;
          if (options.onHead(head, socket)) return;
        }
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = buffered.toString('utf8', end + 4, end + 4 + length);
        buffered = buffered.subarray(end + 4 + length);
        headSeen = false;
        answer({ line: head.split('\r\n')[0]!, head, body, socket, connection });
      }
    });
  });
  server.listen(0, host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`,
    connections: () => connections,
    mostOpen: () => mostOpen,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A 200 answer with a JSON body framed by its length, and `extra` header lines. */
export const jsonAnswer = (body: string, extra = '') =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

export interface PostOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * Raw servers with a JsonClient each, closed together (`closeAll`, from the spec file's `after`):
 * `setUp` gives the server, its client, and `post(path)`, which sends `{path}` unless told otherwise.
 */
export function rawHttpFixture() {
  const servers: { close(): Promise<unknown> }[] = [];
  const clients: JsonClient[] = [];
  return {
    async setUp(answer: (request: RawRequest) => void, options: JsonClientOptions & RawServerOptions = {}) {
      const server = await rawServer(answer, options);
      const client = new JsonClient(options);
      servers.push(server);
      clients.push(client);
      const post = (path: string, extra: PostOptions = {}) =>
        client.exchange({
          method: 'POST',
          baseUrl: server.baseUrl,
          path,
          body: extra.body ?? { path },
          timeoutMs: extra.timeoutMs ?? 10_000,
          ...(extra.signal ? { signal: extra.signal } : {}),
          ...(extra.headers ? { headers: extra.headers } : {}),
        });
      return { server, client, post };
    },
    async closeAll(): Promise<void> {
      await Promise.all(clients.map((client) => client.close()));
      await Promise.all(servers.map((server) => server.close()));
    },
  };
}
