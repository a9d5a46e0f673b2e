import type http from 'node:http';
import { createHttpServer } from '../../node-http.js';
import type { Logger } from '../../log.js';
import { closeServer, listenOn, parseBindAddress } from './bind-address.js';

/**
 * An HTTP server on a controller-runtime style bind address (`:8080`, `127.0.0.1:0`; `"0"` or `""` disables it):
 * the listen/close life cycle shared by the metrics server and the health probe server. Subclasses answer requests
 * in `handle`, which must never throw (answer 500 instead), and may serve HTTPS by overriding `createServer`.
 */
export abstract class EndpointServer {
  protected readonly bindAddress: string;
  protected readonly log: Logger;
  private server: http.Server | undefined;
  private bound: string | undefined;

  constructor(bindAddress: string, log: Logger) {
    this.bindAddress = bindAddress;
    parseBindAddress(bindAddress); // fail fast on a malformed address
    this.log = log;
  }

  /** The bound `host:port` once listening. */
  get address(): string | undefined {
    return this.bound;
  }

  /** Starts serving; resolves with the bound `host:port`, or undefined when disabled. */
  async listen(): Promise<string | undefined> {
    const addr = parseBindAddress(this.bindAddress);
    if (addr === undefined) return undefined;
    if (this.server !== undefined) throw new Error(`${this.constructor.name} is already listening`);
    this.server = await this.createServer((req, res) => void this.handle(req, res));
    try {
      this.bound = await listenOn(this.server, addr);
    } catch (err) {
      this.server = undefined;
      this.closed();
      throw err;
    }
    this.log.info(this.listeningMessage(), { address: this.bound, ...this.listeningFields() });
    return this.bound;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.bound = undefined;
    if (server) {
      this.closed();
      await closeServer(server);
    }
  }

  /** The server `listen` starts (default plain HTTP); an `https.Server` is an `http.Server` too. May throw (bad config). */
  protected async createServer(listener: http.RequestListener): Promise<http.Server> {
    return createHttpServer(listener);
  }

  /** Called when the server created by `createServer` stops (or failed to listen): release what it holds. */
  protected closed(): void {}

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;
  protected abstract listeningMessage(): string;
  protected listeningFields(): Record<string, unknown> {
    return {};
  }
}
