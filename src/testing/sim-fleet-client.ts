import { GymnastError } from '../core/errors/gymnast-error.js';
import { TransportError } from '../core/errors/transport-error.js';
import { type HttpExchange, JsonClient, type JsonClientRequest } from '../http-client/json-client.js';
import type { HttpReply } from '../http-client/http-reply.js';
import { readJsonReply } from '../http-client/read-json-reply.js';
import { requestUrl } from '../http-client/request-url.js';
import type { SimFleet } from '../servers/sim/sim-fleet.js';

/**
 * A `JsonClient` whose requests to a fleet's replicas are answered in this process, without sockets
 * (see `SimReplicaServer.answer`): a policy or a metrics reader built on it runs on the fleet's
 * `VirtualClock` exactly, as fast as the simulator goes, where over HTTP simulated time would run on
 * while requests sit in the network. Bodies still go through JSON both ways, as on the wire; a replica
 * that fails resets the calls it was answering (a `TransportError`), as its connections are cut.
 */
export class SimFleetClient extends JsonClient {
  readonly #fleet: SimFleet;

  constructor(fleet: SimFleet) {
    super();
    this.#fleet = fleet;
  }

  /** Read from `exchange`'s answer as JsonClient reads one from a server. */
  override request<T>(request: JsonClientRequest<T>): Promise<T> {
    return this.exchange(request).then((reply) => readJsonReply(requestUrl(request.baseUrl, request.path), reply, request));
  }

  override async exchange(request: HttpExchange): Promise<HttpReply> {
    const url = new URL(requestUrl(request.baseUrl, request.path));
    const signal = request.signal ?? new AbortController().signal;
    const replica = this.#fleet.replicas.find(({ server }) => new URL(server.url).origin === url.origin);
    if (!replica) throw new TransportError(url.href, `no replica of the simulated fleet at ${url.origin}`);
    try {
      const body = request.body === undefined ? undefined : JSON.parse(JSON.stringify(request.body));
      const answer = await replica.server.answer({ method: request.method, path: `${url.pathname}${url.search}`, body }, signal);
      const text = answer.text ?? JSON.stringify(answer.body);
      return { status: answer.status, headers: { 'content-type': answer.text === undefined ? 'application/json' : 'text/plain' }, text };
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (GymnastError.isInstance(error)) throw error;
      throw new TransportError(url.href, error instanceof Error ? error.message : String(error), { cause: error });
    }
  }

  override async close(): Promise<void> {}
}
