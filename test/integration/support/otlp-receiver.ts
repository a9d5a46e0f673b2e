/**
 * An OTLP/HTTP trace receiver for tests: a plain `node:http` server on 127.0.0.1 taking `POST /v1/traces` as JSON
 * (`http/json`) or protobuf (`http/protobuf`), decoding each export into {@link ReceivedSpan}s. Protobuf is decoded
 * by protobufjs from the OTLP trace schema (opentelemetry-proto's messages and field numbers, as .proto text below),
 * not by hand. Other OTLP paths are answered 200 and ignored.
 */
import http from 'node:http';
import type net from 'node:net';
import protobuf from 'protobufjs';

/** One span as exported, ids in lower-case hex, attributes flattened to plain values. */
export interface ReceivedSpan {
  /** `json` or `protobuf`: how it arrived. */
  encoding: 'json' | 'protobuf';
  /** The resource's attributes (e.g. `service.name`). */
  resource: Record<string, unknown>;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP `SpanKind`: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
  events: { name: string; attributes: Record<string, unknown> }[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

/**
 * The messages of opentelemetry-proto a trace export uses (`collector/trace/v1`, `trace/v1`, `common/v1`,
 * `resource/v1`), with their field numbers, in one package and without the fields the tests never read. protobufjs
 * turns the field names into camelCase, as OTLP/JSON spells them.
 */
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9;
  repeated Event events = 11; repeated Link links = 13; Status status = 15;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; }
message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;
const ExportRequest = protobuf.parse(OTLP_TRACE_PROTO).root.lookupType('otlp.ExportTraceServiceRequest');

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value?: AnyValue };

function value(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(value);
  return undefined;
}

function attrs(kvs: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((kvs ?? []).map((kv) => [kv.key, value(kv.value)]));
}

/** Ids: hex strings in OTLP/JSON, base64 after protobufjs' `toObject({ bytes: String })`: both to lower-case hex. */
function hexId(id: unknown, encoding: 'json' | 'protobuf'): string {
  if (typeof id !== 'string' || id === '') return '';
  return encoding === 'json' ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

interface RawRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId?: string;
        spanId?: string;
        parentSpanId?: string;
        name?: string;
        kind?: number;
        attributes?: KeyValue[];
        links?: { traceId?: string; spanId?: string; attributes?: KeyValue[] }[];
        events?: { name?: string; attributes?: KeyValue[] }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

function spansOf(req: RawRequest, encoding: 'json' | 'protobuf'): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of req.resourceSpans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          encoding,
          resource,
          traceId: hexId(s.traceId, encoding),
          spanId: hexId(s.spanId, encoding),
          parentSpanId: hexId(s.parentSpanId, encoding),
          name: s.name ?? '',
          kind: s.kind ?? 0,
          attributes: attrs(s.attributes),
          links: (s.links ?? []).map((l) => ({ traceId: hexId(l.traceId, encoding), spanId: hexId(l.spanId, encoding), attributes: attrs(l.attributes) })),
          events: (s.events ?? []).map((e) => ({ name: e.name ?? '', attributes: attrs(e.attributes) })),
          statusCode: s.status?.code ?? 0,
        });
      }
    }
  }
  return out;
}

/** A running receiver: `spans` grows as exports arrive; `endpoint` is what `OTEL_EXPORTER_OTLP_ENDPOINT` takes. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Content types of the trace exports received, in order. */
  readonly contentTypes: string[] = [];
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = http.createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method === 'POST' && req.url === '/v1/traces') {
          const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
          receiver.contentTypes.push(type);
          const body = Buffer.concat(chunks);
          if (type === 'application/x-protobuf') {
            const decoded = ExportRequest.toObject(ExportRequest.decode(body), { bytes: String, longs: String, enums: Number, defaults: false }) as RawRequest;
            receiver.spans.push(...spansOf(decoded, 'protobuf'));
          } else {
            receiver.spans.push(...spansOf(JSON.parse(body.toString('utf8')) as RawRequest, 'json'));
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject));
    return receiver;
  }

  /** `http://127.0.0.1:<port>`: the OTLP endpoint (exporters append `/v1/traces`). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
