/**
 * `@kubegen/runtime/tracing/sdk`: starts the OpenTelemetry SDK for Node's tracing part when the environment asks for
 * traces — what a controller's `main.ts` calls first (docs/tracing.md). A separate, optional entry point: neither
 * `@kubegen/runtime` nor `@kubegen/runtime/tracing` loads it, and it loads the SDK only when asked.
 *
 * Contract of {@link startTracing}:
 * - Asked for: `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_TRACES_EXPORTER` is set
 *   and `OTEL_SDK_DISABLED` is not `true`, and `OTEL_TRACES_EXPORTER` is not `none`. Otherwise nothing is loaded and
 *   it resolves with a no-op.
 * - Asked for, it loads `@opentelemetry/sdk-trace-node`, `@opentelemetry/resources` and the exporter
 *   `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL` names (`http/protobuf`, the default:
 *   `@opentelemetry/exporter-trace-otlp-proto`; `http/json`:
 *   `@opentelemetry/exporter-trace-otlp-http`; `grpc`: `@opentelemetry/exporter-trace-otlp-grpc`), or the console exporter (`OTEL_TRACES_EXPORTER=console`); starts a
 *   `NodeTracerProvider` with a batch span processor and the resource from `OTEL_SERVICE_NAME`,
 *   `OTEL_RESOURCE_ATTRIBUTES` and the host, OS and process (settled before it resolves: the host id is read
 *   asynchronously); registers it globally (the async-hooks context manager,
 *   the W3C `traceparent` propagator) and turns the runtime's tracing on (`enableTracing`), so a controller run
 *   without a manager is traced too. The SDK reads the other standard variables itself (`OTEL_EXPORTER_OTLP_HEADERS`,
 *   `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*`, …).
 * - It rejects, before loading anything, an exporter other than `otlp`, `console` or `none`, and a protocol other
 *   than those three; and, when a package cannot be loaded, with an error naming the npm packages to install. These
 *   packages are optional peer dependencies of the runtime (`kubegen init --tracing` installs them).
 * - It resolves with what flushes and stops the provider (call it on shutdown).
 *
 * Not `@opentelemetry/sdk-node`: it loads every exporter of every signal (gRPC included) whatever is asked, about half
 * a second of CPU and 40 MB of memory at start (docs/tracing.md, Cost).
 */
import { enableTracing } from './otel.js';

/** What is used of `@opentelemetry/sdk-trace-node` (loaded by name, so the runtime compiles and installs without it). */
interface SdkTraceNode {
  NodeTracerProvider: new (config: { resource: unknown; spanProcessors: unknown[] }) => { register(): void; shutdown(): Promise<void> };
  BatchSpanProcessor: new (exporter: unknown) => unknown;
  ConsoleSpanExporter: new () => unknown;
}

/** What is used of `@opentelemetry/resources`. */
interface Resources {
  defaultResource(): { merge(other: unknown): { waitForAsyncAttributes?(): Promise<void> } };
  detectResources(config: { detectors: unknown[] }): unknown;
  envDetector: unknown;
  hostDetector: unknown;
  osDetector: unknown;
  processDetector: unknown;
}

/** The exporter package of each `OTEL_EXPORTER_OTLP_PROTOCOL`. */
const OTLP_EXPORTERS: Readonly<Record<string, string>> = {
  'http/protobuf': '@opentelemetry/exporter-trace-otlp-proto',
  'http/json': '@opentelemetry/exporter-trace-otlp-http',
  grpc: '@opentelemetry/exporter-trace-otlp-grpc',
};

/** The packages `kubegen init --tracing` installs (the gRPC exporter is not among them). */
export const TRACING_SDK_PACKAGES: readonly string[] = [
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/resources',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/exporter-trace-otlp-http',
];

/**
 * The installed packages' loaders: `import()`s of string literals, so that a bundler follows them (`kubegen bundle`
 * puts what the project has installed into the image's bundle). The gRPC exporter, which `kubegen init --tracing`
 * does not install, is loaded by name.
 */
const LOADERS: Readonly<Record<string, () => Promise<unknown>>> = {
  '@opentelemetry/sdk-trace-node': () => import('@opentelemetry/sdk-trace-node'),
  '@opentelemetry/resources': () => import('@opentelemetry/resources'),
  '@opentelemetry/exporter-trace-otlp-proto': () => import('@opentelemetry/exporter-trace-otlp-proto'),
  '@opentelemetry/exporter-trace-otlp-http': () => import('@opentelemetry/exporter-trace-otlp-http'),
};

/** Loads `specifier`, or throws naming what to install. */
async function load<M>(specifier: string): Promise<M> {
  try {
    const loader = LOADERS[specifier];
    return (await (loader ? loader() : import(specifier))) as M;
  } catch (err) {
    const install = specifier.endsWith('-grpc') ? `npm install ${specifier}` : `npm install ${TRACING_SDK_PACKAGES.join(' ')}`;
    throw new Error(`traces are asked for (OTEL_* variables), but ${specifier} cannot be loaded: ${install} (${(err as Error).message})`, { cause: err });
  }
}

/**
 * Starts the SDK when `env` asks for traces (see the module comment); resolves with what flushes and stops it (a
 * no-op when not asked).
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<() => Promise<void>> {
  const asked = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_EXPORTER'].some((v) => !!env[v]);
  if (!asked || env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return async () => undefined;
  const exporterName = (env['OTEL_TRACES_EXPORTER'] || 'otlp').split(',')[0]!.trim();
  if (exporterName === 'none') return async () => undefined;
  if (exporterName !== 'otlp' && exporterName !== 'console') throw new Error(`OTEL_TRACES_EXPORTER=${exporterName}: expected otlp, console or none`);
  const protocol = env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] || env['OTEL_EXPORTER_OTLP_PROTOCOL'] || 'http/protobuf';
  const exporterPackage = OTLP_EXPORTERS[protocol];
  if (exporterName === 'otlp' && exporterPackage === undefined) throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: expected http/protobuf, http/json or grpc`);
  const sdk = await load<SdkTraceNode>('@opentelemetry/sdk-trace-node');
  const resources = await load<Resources>('@opentelemetry/resources');
  const exporter =
    exporterName === 'console'
      ? new sdk.ConsoleSpanExporter()
      : new (await load<{ OTLPTraceExporter: new () => unknown }>(exporterPackage!)).OTLPTraceExporter();
  const { envDetector, hostDetector, osDetector, processDetector } = resources;
  const resource = resources.defaultResource().merge(resources.detectResources({ detectors: [envDetector, hostDetector, osDetector, processDetector] }));
  // Settled before the first span: else the batch processor asks every span of its first batch to wait for them.
  await resource.waitForAsyncAttributes?.();
  const provider = new sdk.NodeTracerProvider({ resource, spanProcessors: [new sdk.BatchSpanProcessor(exporter)] });
  provider.register(); // the async-hooks context manager (spans nest) and the W3C propagators (traceparent)
  await enableTracing();
  return () => provider.shutdown();
}
