/**
 * OpenTelemetry traces, on by environment (docs/tracing.md). When `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_TRACES_EXPORTER` is set and `OTEL_SDK_DISABLED` is not `true`, the
 * official OpenTelemetry SDK for Node's tracing part is loaded and started: a `NodeTracerProvider` with a batch span
 * processor and the OTLP exporter `OTEL_EXPORTER_OTLP_PROTOCOL` names (`http/protobuf`, the default, or `http/json`),
 * the resource from `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` and the host and process, the W3C `traceparent`
 * propagator. The SDK reads the other standard variables itself (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`,
 * `OTEL_BSP_*`, …), and the runtime's tracing is turned on (`enableTracing`: this controller has no Manager to do
 * it), so API requests and webhook calls are traced. Metrics stay Prometheus' (`/metrics`) and logs stay on stderr.
 *
 * Not `@opentelemetry/sdk-node`: it loads every exporter of every signal (gRPC included) whatever is asked, about half
 * a second of CPU and 40 MB of memory at start (docs/tracing.md, Cost).
 *
 * Without those variables nothing of the SDK is loaded (the imports are dynamic) and tracing costs nothing.
 */

import { enableTracing } from '@kubegen/runtime/tracing';

/** Starts the SDK when the environment asks for traces; resolves with what flushes and stops it (a no-op if not). */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<() => Promise<void>> {
  const asked = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_EXPORTER'].some((v) => !!env[v]);
  if (!asked || env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return async () => undefined;
  const exporterName = (env['OTEL_TRACES_EXPORTER'] || 'otlp').split(',')[0]!.trim();
  if (exporterName === 'none') return async () => undefined;
  if (exporterName !== 'otlp' && exporterName !== 'console') throw new Error(`OTEL_TRACES_EXPORTER=${exporterName}: this example exports with otlp or console (or none)`);
  const protocol = env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'] || env['OTEL_EXPORTER_OTLP_PROTOCOL'] || 'http/protobuf';
  if (exporterName === 'otlp' && protocol !== 'http/protobuf' && protocol !== 'http/json') throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: this example exports with http/protobuf or http/json`);
  const { NodeTracerProvider, BatchSpanProcessor, ConsoleSpanExporter } = await import('@opentelemetry/sdk-trace-node');
  const { defaultResource, detectResources, envDetector, hostDetector, osDetector, processDetector } = await import('@opentelemetry/resources');
  const exporter =
    exporterName === 'console'
      ? new ConsoleSpanExporter()
      : protocol === 'http/json'
        ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()
        : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(detectResources({ detectors: [envDetector, hostDetector, osDetector, processDetector] })),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register(); // the async-hooks context manager (spans nest) and the W3C propagators (traceparent)
  await enableTracing();
  return () => provider.shutdown();
}
