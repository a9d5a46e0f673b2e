/**
 * The OTLP/HTTP exporters' (`@opentelemetry/otlp-exporter-base`) `import('http')` without Node's `fetch`: an ESM
 * import of `node:http` builds the module's namespace, which reads every export, lazy ones included, and on Node 24
 * that loads undici (`WebSocket`, `CloseEvent`, `MessageEvent`) — tens of milliseconds of CPU and about 2 MB of heap
 * at the first export, for a module a controller never uses (node-http.ts says the same of the runtime).
 *
 * Contract of {@link routeExporterHttpImport}:
 * - Installs, once per process, a `node:module` resolve hook (`module.registerHooks`) that answers `http` /
 *   `node:http` asked by a file of `@opentelemetry/otlp-exporter-base` with exporter-http.ts: the `request` and
 *   `Agent` of `node:http` (the only values the exporter takes from it), loaded with `require`. Every other
 *   resolution, `https` included, goes on unchanged.
 * - Returns whether the hook is installed: false on a Node without `module.registerHooks`, or when exporter-http.js
 *   is not beside this module (the runtime bundled into one file); the exporter then imports `node:http` as before,
 *   and nothing else changes.
 */
import fs from 'node:fs';
import nodeModule from 'node:module';

/** `module.registerHooks` as far as it is used here (Node >= 22.15). */
type RegisterHooks = (hooks: {
  resolve: (
    specifier: string,
    context: { parentURL?: string | undefined },
    nextResolve: (specifier: string, context: { parentURL?: string | undefined }) => unknown,
  ) => unknown;
}) => unknown;

/** The folder of the package whose `import('http')` is answered. */
const EXPORTER_BASE = '/@opentelemetry/otlp-exporter-base/';

let installed = false;

/** Installs the hook (see the module comment); true when it is installed. */
export function routeExporterHttpImport(): boolean {
  if (installed) return true;
  const registerHooks = (nodeModule as unknown as { registerHooks?: RegisterHooks }).registerHooks;
  if (typeof registerHooks !== 'function') return false;
  const target = new URL('./exporter-http.js', import.meta.url);
  // Bundled into one file, the runtime has no exporter-http.js beside it: then the exporter imports node:http itself.
  if (!fs.existsSync(target)) return false;
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      (specifier === 'http' || specifier === 'node:http') && context.parentURL?.includes(EXPORTER_BASE)
        ? { url: target.href, format: 'module', shortCircuit: true }
        : nextResolve(specifier, context),
  });
  installed = true;
  return true;
}
