/**
 * The values of `node:http` the runtime uses, loaded with `require`. An ESM `import` of `node:http` builds the
 * module's namespace, which reads every export, lazy ones included; on Node 24 that loads undici (Node's `fetch` and
 * `WebSocket`), which a controller never uses: about 2 MB of heap, 4.5 MB of RSS and 15 ms of startup. Types come
 * from `import type http from 'node:http'` as usual; only values go through here.
 */
import { createRequire } from 'node:module';

const nodeHttp = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** `http.Agent`. */
export const HttpAgent = nodeHttp.Agent;
/** `http.request`. */
export const httpRequest = nodeHttp.request;
/** `http.createServer`. */
export const createHttpServer = nodeHttp.createServer;
