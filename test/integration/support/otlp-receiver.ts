/**
 * An OTLP/HTTP trace receiver for tests: a plain `node:http` server on 127.0.0.1 taking `POST /v1/traces` as JSON
 * (`http/json`) or protobuf (`http/protobuf`), decoding each export into {@link ReceivedSpan}s. Protobuf is decoded
 * by protobufjs from the OTLP trace schema (opentelemetry-proto's `trace/v1`, `common/v1`, `resource/v1`: the
 * messages and field numbers below), not by hand. Other OTLP paths are answered 200 and ignored.
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

const KV = { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } };
const SCHEMA = {
  nested: {
    ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
    ResourceSpans: { fields: { resource: { type: 'Resource', id: 1 }, scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 } } },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    ScopeSpans: { fields: { scope: { type: 'InstrumentationScope', id: 1 }, spans: { rule: 'repeated', type: 'Span', id: 2 } } },
    InstrumentationScope: { fields: { name: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        traceState: { type: 'string', id: 3 },
        parentSpanId: { type: 'bytes', id: 4 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        startTimeUnixNano: { type: 'fixed64', id: 7 },
        endTimeUnixNano: { type: 'fixed64', id: 8 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        events: { rule: 'repeated', type: 'Event', id: 11 },
        links: { rule: 'repeated', type: 'Link', id: 13 },
        status: { type: 'Status', id: 15 },
      },
    },
    Event: { fields: { timeUnixNano: { type: 'fixed64', id: 1 }, name: { type: 'string', id: 2 }, attributes: { rule: 'repeated', type: 'KeyValue', id: 3 } } },
    Link: { fields: { traceId: { type: 'bytes', id: 1 }, spanId: { type: 'bytes', id: 2 }, traceState: { type: 'string', id: 3 }, attributes: { rule: 'repeated', type: 'KeyValue', id: 4 } } },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    KeyValue: KV,
    AnyValue: {
      oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
        arrayValue: { type: 'ArrayValue', id: 5 },
        kvlistValue: { type: 'KeyValueList', id: 6 },
        bytesValue: { type: 'bytes', id: 7 },
      },
    },
    ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
    KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
  },
};
const ExportRequest = protobuf.Root.fromJSON(SCHEMA).lookupType('ExportTraceServiceRequest');

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
