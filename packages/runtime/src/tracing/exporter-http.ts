/**
 * What the OTLP/HTTP exporter gets for `import('http')` once {@link routeExporterHttpImport} is installed: `request`
 * and `Agent` of `node:http`, loaded with `require` (node-http.ts). Not a module a user imports.
 */
export { HttpAgent as Agent, httpRequest as request } from '../node-http.js';
