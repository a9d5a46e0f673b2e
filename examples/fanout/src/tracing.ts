/**
 * OpenTelemetry traces, on by environment (docs/tracing.md). When `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_TRACES_EXPORTER` is set and `OTEL_SDK_DISABLED` is not `true`, the
 * official OpenTelemetry SDK for Node is loaded and started; it reads the other standard variables itself
 * (`OTEL_EXPORTER_OTLP_PROTOCOL` — `http/protobuf`, the default, or `http/json` —, `OTEL_SERVICE_NAME`,
 * `OTEL_TRACES_SAMPLER`, `OTEL_RESOURCE_ATTRIBUTES`, …). The manager finds the SDK's provider when it starts and
 * traces reconciles, API requests and webhook calls. Metrics stay Prometheus' (`/metrics`) and logs stay on stderr:
 * the SDK's metric and log exporters are off unless `OTEL_METRICS_EXPORTER` / `OTEL_LOGS_EXPORTER` ask for them.
 *
 * Without those variables nothing of the SDK is loaded (the import is dynamic) and tracing costs nothing.
 */

/** Starts the SDK when the environment asks for traces; resolves with what flushes and stops it (a no-op if not). */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<() => Promise<void>> {
  const asked = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_EXPORTER'].some((v) => !!env[v]);
  if (!asked || env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return async () => undefined;
  env['OTEL_METRICS_EXPORTER'] ??= 'none';
  env['OTEL_LOGS_EXPORTER'] ??= 'none';
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK();
  sdk.start();
  return () => sdk.shutdown();
}
