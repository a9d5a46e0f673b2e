/**
 * The `http/protobuf` trace exporter of {@link startTracing} (sdk.ts) without loading what traces do not use.
 * `@opentelemetry/exporter-trace-otlp-proto` loads `@opentelemetry/otlp-transformer`'s index, which loads the metrics
 * and logs serializers and `@opentelemetry/sdk-metrics` too: 85 modules, about a fifth of the CPU the SDK takes to
 * load (docs/tracing.md, Cost).
 *
 * Contract of {@link leanOtlpProtoTraceExporter}:
 * - For the exporter versions it was written against ({@link LEAN_EXPORTER_VERSIONS}, the runtime's peer range), it
 *   builds what that package's `OTLPTraceExporter` constructor builds — an `OTLPExporterBase` over
 *   `createOtlpHttpExportDelegate` with the standard `OTEL_EXPORTER_OTLP_*` configuration, the protobuf trace
 *   serializer and the exporter's metrics helper — from the same packages the exporter depends on (resolved from its
 *   folder), loading only their trace parts. Same requests, same bytes (test/unit/tracing-sdk-exporter.test.ts).
 * - Any other version, or a package laid out otherwise (a file missing, an export not a function): undefined, and
 *   the caller uses the package's own `OTLPTraceExporter`.
 */
import { createRequire } from 'node:module';

/** The `@opentelemetry/exporter-trace-otlp-proto` versions whose constructor is rebuilt here. */
export const LEAN_EXPORTER_VERSIONS = /^0\.223\./;

/** The exporter package's name. */
const EXPORTER = '@opentelemetry/exporter-trace-otlp-proto';

type Fn = (...args: unknown[]) => unknown;

/** The exporter built from parts, or undefined (see the module comment). */
export function leanOtlpProtoTraceExporter(): unknown {
  try {
    const here = createRequire(import.meta.url);
    const exporterPackage = here.resolve(`${EXPORTER}/package.json`);
    const { version } = here(exporterPackage) as { version: string };
    if (!LEAN_EXPORTER_VERSIONS.test(version)) return undefined;
    const fromExporter = createRequire(exporterPackage);
    const base = fromExporter('@opentelemetry/otlp-exporter-base') as { OTLPExporterBase: new (delegate: unknown) => unknown };
    const http = fromExporter('@opentelemetry/otlp-exporter-base/node-http') as { createOtlpHttpExportDelegate: Fn; convertLegacyHttpOptions: Fn };
    const fromTransformer = createRequire(fromExporter.resolve('@opentelemetry/otlp-transformer/package.json'));
    const { ProtobufTraceSerializer } = fromTransformer('./build/src/trace/protobuf/index.js') as { ProtobufTraceSerializer: unknown };
    const { TraceExporterMetricsHelper } = fromTransformer('./build/src/trace/index.js') as { TraceExporterMetricsHelper: unknown };
    if (typeof base.OTLPExporterBase !== 'function' || typeof http.createOtlpHttpExportDelegate !== 'function' || typeof http.convertLegacyHttpOptions !== 'function') return undefined;
    if (typeof ProtobufTraceSerializer !== 'object' || ProtobufTraceSerializer === null || typeof TraceExporterMetricsHelper !== 'object') return undefined;
    // What OTLPTraceExporter's constructor does with no configuration (exporter-trace-otlp-proto 0.223).
    const options = http.convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' });
    return new base.OTLPExporterBase(http.createOtlpHttpExportDelegate(options, ProtobufTraceSerializer, 'otlp_http_span_exporter', TraceExporterMetricsHelper, undefined));
  } catch {
    return undefined;
  }
}
