import http from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

// An OpenTelemetry collector's OTLP/HTTP trace receiver: `POST /v1/traces` with an ExportTraceServiceRequest in
// protobuf (`application/x-protobuf`), answered 200 with an empty ExportTraceServiceResponse, as the OTLP specification
// says. The messages below are the parts of opentelemetry-proto's trace, resource and common messages a receiver
// reads, with their field numbers; each span is kept with its resource's attributes.

const PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse {}
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5;
  int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10; Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; bytes bytes_value = 7; }
}
message ArrayValue { repeated AnyValue values = 1; }
`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;
const Request = root.lookupType('otlp.ExportTraceServiceRequest');
const Response = root.lookupType('otlp.ExportTraceServiceResponse');

type Value = string | number | boolean | Value[] | undefined;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, Value>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The attributes of the resource that sent it (`service.name`). */
  resource: Record<string, Value>;
}

export interface OtlpReceiver {
  url: string;
  /** Every span received so far, in arrival order. */
  spans: ReceivedSpan[];
  /** The content types of the export requests. */
  contentTypes: string[];
  close(): Promise<void>;
}

interface DecodedAny {
  string_value?: string;
  bool_value?: boolean;
  int_value?: string;
  double_value?: number;
  array_value?: { values?: DecodedAny[] };
}
const valueOf = (v: DecodedAny | undefined): Value =>
  v?.string_value ?? v?.bool_value ?? (v?.int_value !== undefined ? Number(v.int_value) : undefined) ?? v?.double_value ?? v?.array_value?.values?.map(valueOf);
const attributesOf = (list: { key: string; value?: DecodedAny }[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('hex');

/** Starts a receiver on 127.0.0.1; point OTEL_EXPORTER_OTLP_TRACES_ENDPOINT at `${url}/v1/traces`. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(req.headers['content-type'] ?? '');
      const decoded = Request.toObject(Request.decode(Buffer.concat(chunks)), { longs: String }) as {
        resource_spans?: { resource?: { attributes?: { key: string; value?: DecodedAny }[] }; scope_spans?: { spans?: Record<string, never>[] }[] }[];
      };
      for (const rs of decoded.resource_spans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scope_spans ?? []) {
          for (const span of (ss.spans ?? []) as unknown as {
            trace_id: Uint8Array;
            span_id: Uint8Array;
            parent_span_id?: Uint8Array;
            name: string;
            kind?: number;
            attributes?: { key: string; value?: DecodedAny }[];
            status?: { code?: number };
          }[]) {
            spans.push({
              traceId: hex(span.trace_id),
              spanId: hex(span.span_id),
              parentSpanId: hex(span.parent_span_id),
              name: span.name,
              kind: span.kind ?? 0,
              attributes: attributesOf(span.attributes),
              statusCode: span.status?.code ?? 0,
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(Buffer.from(Response.encode(Response.create({})).finish()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
