/**
 * One request and its response over either protocol, for `HttpTransport`: an HTTP/2 stream on the shared
 * `Http2Connection`, or an HTTP/1.1 request on a keep-alive socket; reading a response body whole or chunk by chunk;
 * and `HttpWatch`, a watch over one streaming response. Nothing here retries, throttles or authenticates: the
 * transport does (see http-transport.ts).
 */
import type http from 'node:http';
import { httpRequest } from '../node-http.js';
import type http2 from 'node:http2';
import https from 'node:https';
import type { Readable } from 'node:stream';
import type { Connection } from './http-connection.js';
import type { Http2Connection } from './http2-session.js';
import { isStall } from './errors.js';
import { parseJsonLines } from './json-lines.js';
import type { Watch, WatchEvent } from './types.js';

/** A response of either protocol: status, headers, and the body as a readable stream. */
export interface OpenResponse {
  statusCode: number;
  statusMessage: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: Readable;
  /** The whole body arrived (the stream was not cut). */
  complete(): boolean;
  destroy(): void;
  /** The caller gave up on a silent response: the connection is suspect (HTTP/2; HTTP/1.1 destroys the socket). */
  stalled(): void;
}

/**
 * One request as an HTTP/2 stream. `headers` have lower-case names (the transport's and the connection's are), so
 * they are copied as they are behind the pseudo-headers. Per stream: one copy of the headers, three listeners
 * (`response`, `error`, `close`) until the response arrives, none after it (`readableEnded` tells a complete body).
 * Node's own `AsyncResource` per request stream (`PendingRequest`) cannot be avoided through its public API.
 */
export function openHttp2(
  conn: Http2Connection,
  method: string,
  path: string,
  headers: Record<string, string | string[] | number>,
  body: Buffer | undefined,
  signal: AbortSignal | undefined,
  basicAuth: string | undefined,
): Promise<OpenResponse> {
  const h2headers: http2.OutgoingHttpHeaders = Object.assign({ ':method': method, ':path': path }, headers);
  if (basicAuth && h2headers['authorization'] === undefined) h2headers['authorization'] = `Basic ${Buffer.from(basicAuth).toString('base64')}`;
  const stream = conn.request(h2headers, signal ? { endStream: body === undefined, signal } : { endStream: body === undefined });
  return new Promise<OpenResponse>((resolve, reject) => {
    let settled = false;
    const failed = (err: Error): void => {
      if (settled) return; // 'error' is followed by 'close'
      settled = true;
      stream.off('response', answered);
      // No answer before the caller's deadline: the connection may be frozen.
      if (signal?.aborted && isStall(signal.reason)) conn.suspect(`${method} ${path}`);
      reject(err);
    };
    // A stream can also end without an error: the server reset it or the connection went away (GOAWAY, a killed
    // apiserver). Without a response that is a failed request, never one that waits forever.
    const closed = (): void =>
      failed(Object.assign(new Error(`the apiserver closed the HTTP/2 stream before answering (code ${stream.rstCode ?? 'none'})`), { code: 'ECONNRESET' }));
    const answered = (res: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader): void => {
      settled = true;
      stream.off('error', failed);
      stream.off('close', closed);
      const status = res[':status'];
      delete res[':status'];
      resolve({
        statusCode: Number(status ?? 0),
        statusMessage: undefined,
        headers: res as http.IncomingHttpHeaders,
        body: stream,
        complete: () => stream.readableEnded,
        destroy: () => stream.destroy(),
        stalled: () => conn.suspect(`${method} ${path}`),
      });
    };
    stream.once('error', failed);
    stream.once('close', closed);
    stream.once('response', answered);
    if (body !== undefined) stream.end(body);
  });
}

export function openHttp1(
  conn: Connection,
  method: string,
  path: string,
  headers: Record<string, string | string[] | number>,
  body: Buffer | undefined,
  signal: AbortSignal | undefined,
  readIdleTimeoutMs: number | undefined,
  watch: boolean,
): Promise<OpenResponse> {
  const options: https.RequestOptions = {
    protocol: conn.server.protocol,
    hostname: conn.server.hostname.replace(/^\[|\]$/g, ''),
    port: conn.server.port || (conn.secure ? 443 : 80),
    path,
    method,
    headers,
    agent: conn.agent,
  };
  if (conn.basicAuth) options.auth = conn.basicAuth;
  if (signal) options.signal = signal;
  const send = conn.secure ? https.request : httpRequest;
  return new Promise<OpenResponse>((resolve, reject) => {
    const req = send(options, (res) =>
      resolve({
        statusCode: res.statusCode ?? 0,
        statusMessage: res.statusMessage,
        headers: res.headers,
        body: res,
        complete: () => res.complete,
        destroy: () => res.destroy(),
        stalled: () => res.destroy(),
      }),
    );
    req.on('error', reject);
    if (watch) req.setNoDelay(true);
    // A silent socket (frozen peer or proxy) fails the request and is destroyed, so it is never reused.
    if (readIdleTimeoutMs !== undefined && readIdleTimeoutMs > 0) {
      req.setTimeout(readIdleTimeoutMs, () => req.destroy(new Error(`no data from the apiserver for ${readIdleTimeoutMs} ms; connection abandoned`)));
    }
    req.end(body);
  });
}

/** Reads a whole response body into one buffer. */
export async function readBody(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  await readStream(body, (chunk) => {
    chunks.push(chunk);
    total += chunk.length;
  });
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * Hands every chunk of a response body to `onChunk` as it arrives; resolves at its end, rejects when the stream
 * fails, is aborted or closes before its end, or when `onChunk` throws (the stream is then destroyed).
 */
export function readStream(body: Readable, onChunk: (chunk: Buffer) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let done = false;
    const fail = (err: unknown): void => {
      if (done) return;
      done = true;
      reject(err);
    };
    body.on('data', (chunk: Buffer) => {
      if (done) return;
      try {
        onChunk(chunk);
      } catch (err) {
        fail(err);
        body.destroy();
      }
    });
    body.on('end', () => {
      if (done) return;
      done = true;
      resolve();
    });
    body.on('error', fail);
    // Every stream closes, also after its end: build the error (and its stack trace) only when it is one.
    body.on('aborted', () => done || fail(new Error('response aborted')));
    body.on('close', () => done || fail(new Error('connection closed before the response completed')));
  });
}

/** A streaming watch over one HTTP response. Single use. */
export class HttpWatch<T> implements Watch<T> {
  private stopped = false;
  private iterated = false;

  constructor(
    private readonly res: OpenResponse,
    private readonly controller: AbortController,
    private readonly signal: AbortSignal,
  ) {
    // Errors surface through the iterator; without a listener an error before iteration would be uncaught.
    res.body.on('error', () => undefined);
  }

  stop(reason?: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    if (isStall(reason) && !this.res.complete()) this.res.stalled();
    this.controller.abort();
    this.res.destroy();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    if (this.iterated) throw new Error('a Watch can be iterated only once');
    this.iterated = true;
    try {
      for await (const value of parseJsonLines(this.res.body)) {
        if (this.stopped) return;
        yield value as WatchEvent<T>;
      }
      // The stream ended: check it ended cleanly (not cut mid-response by a dropped connection).
      if (!this.res.complete() && !this.stopped && !this.signal.aborted) throw new Error('watch stream closed before the response completed');
    } catch (err) {
      if (this.stopped || this.signal.aborted) return;
      throw err;
    } finally {
      if (!this.res.complete()) this.res.destroy();
    }
  }
}
