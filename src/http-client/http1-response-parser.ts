/** An answer that is not HTTP/1.1 as RFC 9112 frames it: the connection it came on is dropped. */
export class HttpProtocolError extends Error {
  readonly code = 'HTTP_PROTOCOL';
  override readonly name = 'HttpProtocolError';
}

/** The headers of an answer: lower-case names, a repeated header's values as a list in order. */
export type ResponseHeaders = Record<string, string | string[]>;

/** Told what the parser reads, in order: `head` once per answer (not for 1xx), `body` as bytes come, `complete` once. */
export interface ResponseSink {
  head(status: number, headers: ResponseHeaders): void;
  body(chunk: Buffer): void;
  /** `reusable`: the framing and the headers let the connection carry another request. */
  complete(reusable: boolean): void;
}

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'until-close' | 'done';

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
const DIGITS = /^\d+$/;
const HEX = /^[0-9a-fA-F]+$/;
const SINGLE_TOKEN = /^[a-z0-9-]+$/;
const NONE: readonly string[] = [];
/** A chunk-size line (with its extensions) or a trailer line past this is refused: no real server sends one. */
const MAX_LINE_BYTES = 8 * 1024;

/**
 * Reads one HTTP/1.1 answer at a time from a connection's bytes (RFC 9112): the status line and
 * headers, then a body framed by chunked transfer coding, by Content-Length, or by the connection's
 * close. 1xx answers are skipped; 204, 304 and answers to HEAD have no body. Anything it cannot
 * frame for certain (a bad status line, conflicting lengths, a header without a name) throws an
 * `HttpProtocolError`, since guessing would hand one answer's bytes to the next request.
 */
export class ResponseParser {
  readonly #sink: ResponseSink;
  readonly #maxHeaderBytes: number;
  #state: State = 'done';
  /** The start of a head or line that has not all come yet. */
  #pending: Buffer | undefined;
  #remaining = 0;
  #reusable = true;
  #noBody = false;
  #trailerBytes = 0;
  /** The answer ended in the chunk being read: `push` tells the sink. */
  #ended = false;

  constructor(sink: ResponseSink, maxHeaderBytes: number) {
    this.#sink = sink;
    this.#maxHeaderBytes = maxHeaderBytes;
  }

  /** Expects a new answer; `noBody` for one to a HEAD request. */
  expect(noBody: boolean): void {
    this.#state = 'head';
    this.#pending = undefined;
    this.#reusable = true;
    this.#ended = false;
    this.#noBody = noBody;
  }

  /**
   * Reads the bytes that came. The answer's end is told once all of `chunk` is read: bytes past it (no
   * request asked for them) make the connection unfit for another request, not the answer wrong.
   */
  push(chunk: Buffer): void {
    let data = chunk;
    if (this.#pending !== undefined) {
      data = Buffer.concat([this.#pending, chunk]);
      this.#pending = undefined;
    }
    let at = 0;
    while (at < data.length && this.#state !== 'done') {
      at = this.#step(data, at);
      if (at < 0) return;
    }
    if (this.#ended) {
      this.#ended = false;
      this.#sink.complete(this.#reusable && at === data.length);
    }
  }

  /** The server closed the connection: the end of a body read until close, else an answer cut short. */
  finish(): void {
    if (this.#state === 'until-close') {
      this.#state = 'done';
      this.#sink.complete(false);
      return;
    }
    if (this.#state === 'done') return;
    throw new HttpProtocolError(
      this.#state === 'head' && this.#pending === undefined ? 'other side closed' : 'the server closed the connection before its answer was complete',
    );
  }

  /** Reads from `at`; the next position, or -1 when the rest is kept for the next chunk. */
  #step(data: Buffer, at: number): number {
    switch (this.#state) {
      case 'head':
        return this.#readHead(data, at);
      case 'length':
      case 'chunk-data': {
        const end = Math.min(data.length, at + this.#remaining);
        this.#sink.body(data.subarray(at, end));
        this.#remaining -= end - at;
        if (this.#remaining === 0) {
          if (this.#state === 'length') this.#end();
          else this.#state = 'chunk-end';
        }
        return end;
      }
      case 'until-close':
        this.#sink.body(at === 0 ? data : data.subarray(at));
        return data.length;
      case 'chunk-end':
        if (data.length - at < 2) return this.#keep(data, at);
        if (data[at] !== 0x0d || data[at + 1] !== 0x0a) throw new HttpProtocolError('a chunk of the body does not end with CRLF');
        this.#state = 'chunk-size';
        return at + 2;
      case 'chunk-size':
        return this.#readChunkSize(data, at);
      case 'trailers':
        return this.#readTrailer(data, at);
      default:
        return data.length;
    }
  }

  #readHead(data: Buffer, at: number): number {
    const end = data.indexOf('\r\n\r\n', at, 'latin1');
    if (end < 0) {
      if (data.length - at > this.#maxHeaderBytes) throw new HttpProtocolError(`the answer's headers passed ${this.#maxHeaderBytes} bytes`);
      // No head line holds a bare LF: a head that ends its lines with LF alone would otherwise be waited for until the deadline.
      if (data.indexOf('\n\n', at, 'latin1') >= 0) throw new HttpProtocolError("the answer's head ends its lines with LF, not CRLF");
      return this.#keep(data, at);
    }
    if (end - at > this.#maxHeaderBytes) throw new HttpProtocolError(`the answer's headers passed ${this.#maxHeaderBytes} bytes`);
    this.#head(data.toString('latin1', at, end));
    return end + 4;
  }

  #head(text: string): void {
    const lines = text.split('\r\n');
    const status = STATUS_LINE.exec(lines[0]!);
    if (!status) throw new HttpProtocolError(`the answer does not start with an HTTP/1.x status line: ${JSON.stringify(lines[0]!.slice(0, 80))}`);
    const headers = readHeaders(lines);
    const code = Number(status[2]);
    // Informational answers come before the answer proper; 101 would switch protocols, which no request here asks for.
    if (code < 200) {
      if (code === 101) throw new HttpProtocolError('the server switched protocols (101), which was not asked for');
      return;
    }
    this.#reusable = status[1] === '1' ? !commaList(headers.connection).includes('close') : commaList(headers.connection).includes('keep-alive');
    this.#sink.head(code, headers);
    if (this.#noBody || code === 204 || code === 304) {
      this.#end();
      return;
    }
    this.#frame(headers);
  }

  /** How the body is delimited (RFC 9112 section 6.3). */
  #frame(headers: ResponseHeaders): void {
    const transferCoding = headers['transfer-encoding'];
    if (transferCoding !== undefined) {
      // A length beside a transfer coding is a smuggling attempt or a broken proxy: the coding frames it, and the connection goes.
      if (headers['content-length'] !== undefined) this.#reusable = false;
      if (commaList(transferCoding).at(-1) === 'chunked') {
        this.#state = 'chunk-size';
        this.#trailerBytes = 0;
      } else {
        this.#state = 'until-close';
        this.#reusable = false;
      }
      return;
    }
    const length = headers['content-length'];
    if (length === undefined) {
      this.#state = 'until-close';
      this.#reusable = false;
      return;
    }
    // One length, as servers send it; a list of equal ones ("5, 5", or the header twice) is one length too.
    const values = typeof length === 'string' && DIGITS.test(length) ? [length] : [...new Set(commaList(length))];
    const [value] = values;
    if (values.length !== 1 || !DIGITS.test(value!) || !Number.isSafeInteger(Number(value))) {
      throw new HttpProtocolError(`the answer's Content-Length is not one number: ${JSON.stringify(length)}`);
    }
    this.#remaining = Number(value);
    if (this.#remaining === 0) this.#end();
    else this.#state = 'length';
  }

  #readChunkSize(data: Buffer, at: number): number {
    const end = this.#lineEnd(data, at);
    if (end < 0) return this.#keep(data, at);
    const line = data.toString('latin1', at, end);
    const semicolon = line.indexOf(';');
    const size = (semicolon < 0 ? line : line.slice(0, semicolon)).trim();
    if (!HEX.test(size) || size.length > 12) throw new HttpProtocolError(`a chunk's size is not a hexadecimal number: ${JSON.stringify(line.slice(0, 40))}`);
    this.#remaining = Number.parseInt(size, 16);
    this.#state = this.#remaining === 0 ? 'trailers' : 'chunk-data';
    return end + 2;
  }

  #readTrailer(data: Buffer, at: number): number {
    const end = this.#lineEnd(data, at);
    if (end < 0) return this.#keep(data, at);
    this.#trailerBytes += end - at + 2;
    if (this.#trailerBytes > this.#maxHeaderBytes) throw new HttpProtocolError(`the answer's trailers passed ${this.#maxHeaderBytes} bytes`);
    if (end === at) this.#end();
    return end + 2;
  }

  /** Where the line starting at `at` ends (its CR), or -1 when it has not all come; a line too long throws. */
  #lineEnd(data: Buffer, at: number): number {
    const end = data.indexOf('\r\n', at, 'latin1');
    if (end - at > MAX_LINE_BYTES || (end < 0 && data.length - at > MAX_LINE_BYTES))
      throw new HttpProtocolError(`a line of the chunked body passed ${MAX_LINE_BYTES} bytes`);
    return end;
  }

  #keep(data: Buffer, at: number): number {
    this.#pending = at === 0 ? data : data.subarray(at);
    return -1;
  }

  /** The answer is all read; the sink is told once the rest of the chunk is looked at (see `push`). */
  #end(): void {
    this.#state = 'done';
    this.#ended = true;
  }
}

function readHeaders(lines: readonly string[]): ResponseHeaders {
  // No prototype: a header named `__proto__` or `constructor` is a header like any other.
  const headers: ResponseHeaders = Object.create(null);
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    // Obsolete line folding (a line starting with a space) is refused, as RFC 9112 lets a client do.
    if (colon <= 0 || !TOKEN.test(name)) throw new HttpProtocolError(`a header line of the answer has no valid name: ${JSON.stringify(line.slice(0, 80))}`);
    const value = line.slice(colon + 1).trim();
    const earlier = headers[name];
    if (earlier === undefined) headers[name] = value;
    else if (typeof earlier === 'string') headers[name] = [earlier, value];
    else earlier.push(value);
  }
  return headers;
}

/** A header's comma-separated values, trimmed and lower-case; a repeated header's lists joined. */
function commaList(value: string | string[] | undefined): readonly string[] {
  if (value === undefined) return NONE;
  // The usual header holds one lower-case token (`keep-alive`, `chunked`): nothing to split or copy.
  if (typeof value === 'string' && SINGLE_TOKEN.test(value)) return [value];
  const joined = typeof value === 'string' ? value : value.join(',');
  return joined
    .toLowerCase()
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
