/** A request as a dispatcher sends it: the body already JSON text (or none). */
export interface HttpRequest {
  method: string;
  /** The path and query, as they go on the request line. */
  path: string;
  headers: Record<string, string>;
  body: string | null;
}

/** What a handler can do to its request: give it up. */
export interface RequestController {
  abort(reason: Error): void;
}

/**
 * Told what becomes of one request, in order: it reached a connection, its answer's status and
 * headers, its body as it comes, and its end or its failure. The shape is undici's `DispatchHandler`,
 * so one handler serves undici's pools and gymnast's own (`Http1Pool`).
 */
export interface RequestHandler {
  /** True once it gave up (aborted, timed out) before reaching a connection: a pool drops it rather than open one for it. */
  readonly gaveUp: boolean;
  onRequestStart(controller: RequestController): void;
  onResponseStart(controller: RequestController, status: number, headers: Readonly<Record<string, string | string[] | undefined>>): void;
  onResponseData(controller: RequestController, chunk: Buffer): void;
  onResponseEnd(controller: RequestController): void;
  onResponseError(controller: RequestController | undefined, error: Error): void;
}

/** Sends requests to one server: undici's `Pool` for HTTPS, `Http1Pool` for plain HTTP. */
export interface RequestDispatcher {
  dispatch(request: HttpRequest, handler: RequestHandler): void;
  /** Waits for the requests in flight, then lets every connection go. */
  close(): Promise<void>;
}
