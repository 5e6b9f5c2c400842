/**
 * An OTLP/HTTP trace receiver on loopback, as a collector (Jaeger, Tempo, Langfuse…) would be: it
 * takes `POST /v1/traces` in protobuf (the exporter's default, decoded with protobufjs against the
 * OTLP wire schema) or JSON, answers 200, and keeps every span it was sent, flattened.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/**
 * The part of opentelemetry-proto's ExportTraceServiceRequest the tests read (field numbers as in
 * opentelemetry/proto/{collector/trace,trace,common,resource}/v1; fields not listed are skipped).
 */
const OTLP_SCHEMA = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { Scope scope = 1; repeated Span spans = 2; }
message Scope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
`;

const RequestType = protobuf.parse(OTLP_SCHEMA).root.lookupType('otlp.ExportTraceServiceRequest');

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  startMs: number;
  endMs: number;
  resource: Record<string, AttributeValue>;
  scope: string;
}

export interface ReceivedRequest {
  contentType: string;
  headers: IncomingHttpHeaders;
  /** The body as sent (protobuf bytes or JSON text). */
  body: Buffer;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds /v1/traces). */
  readonly endpoint: string;
  readonly requests: ReceivedRequest[];
  /** Set to an HTTP status (400, 503…) to refuse exports (the spans are then not kept); unset: accept. */
  refuseWith: number | undefined;
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  /** TCP connections accepted so far (an exporter that keeps its connection alive opens one). */
  connections(): number;
  /** Resolves once `predicate` holds for the spans received (polling), or rejects after `ms`. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, ms?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function anyValue(value: Json | undefined): AttributeValue {
  if (!value) return undefined;
  // protobufjs objects and OTLP/JSON use the same camelCase names; JSON sends int64 as a string.
  if (value.stringValue !== undefined && value.stringValue !== null) return String(value.stringValue);
  if (value.boolValue !== undefined && value.boolValue !== null) return Boolean(value.boolValue);
  if (value.intValue !== undefined && value.intValue !== null) return Number(value.intValue);
  if (value.doubleValue !== undefined && value.doubleValue !== null) return Number(value.doubleValue);
  const array = value.arrayValue as { values?: Json[] } | undefined;
  if (array) return (array.values ?? []).map(anyValue);
  return undefined;
}

function attributesOf(list: unknown): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const kv of (list as { key: string; value?: Json }[] | undefined) ?? [])
    out[kv.key] = anyValue(kv.value);
  return out;
}

/** Protobuf ids are bytes; OTLP/JSON sends them as hex strings already. */
function hex(id: unknown): string {
  if (typeof id === 'string') return id.toLowerCase();
  if (id instanceof Uint8Array) return Buffer.from(id).toString('hex');
  return '';
}

function flatten(request: Json): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (request.resourceSpans as Json[] | undefined) ?? []) {
    const resource = attributesOf((rs.resource as Json | undefined)?.attributes);
    for (const ss of (rs.scopeSpans as Json[] | undefined) ?? []) {
      const scope = String((ss.scope as Json | undefined)?.name ?? '');
      for (const s of (ss.spans as Json[] | undefined) ?? []) {
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          attributes: attributesOf(s.attributes),
          statusCode: Number((s.status as Json | undefined)?.code ?? 0),
          startMs: Number(s.startTimeUnixNano ?? 0) / 1e6,
          endMs: Number(s.endTimeUnixNano ?? 0) / 1e6,
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

export function decodeTraceRequest(contentType: string, body: Buffer): ReceivedSpan[] {
  if (contentType.includes('json')) return flatten(JSON.parse(body.toString('utf8')) as Json);
  const message = RequestType.decode(body);
  return flatten(RequestType.toObject(message, { longs: Number, bytes: Uint8Array as never }) as Json);
}

export interface OtlpReceiverOptions {
  /**
   * Decode exports only when spans are asked for (`spans()`, `waitFor`), not as they arrive, and accept
   * every body. The bench uses it: its receiver shares a 2-core machine with the bot it measures, where
   * a real collector runs elsewhere, so decoding must not compete with the bot during the window.
   */
  lazy?: boolean;
}

export async function startOtlpReceiver(options: OtlpReceiverOptions = {}): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  const received: ReceivedSpan[] = [];
  /** Accepted exports not decoded yet (lazy mode). */
  const pending: ReceivedRequest[] = [];
  const decodeQueued = () => {
    for (const { contentType, body } of pending.splice(0))
      received.push(...decodeTraceRequest(contentType, body));
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const contentType = String(req.headers['content-type'] ?? '');
      const body = Buffer.concat(chunks);
      requests.push({ contentType, headers: req.headers, body });
      if (receiver.refuseWith !== undefined) {
        res.writeHead(receiver.refuseWith).end();
        return;
      }
      if (options.lazy) pending.push({ contentType, headers: req.headers, body });
      else {
        try {
          received.push(...decodeTraceRequest(contentType, body));
        } catch {
          res.writeHead(400).end();
          return;
        }
      }
      // An empty ExportTraceServiceResponse: full success.
      if (contentType.includes('json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: OtlpReceiver = {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    refuseWith: undefined,
    spans: () => {
      decodeQueued();
      return [...received];
    },
    connections: () => connections,
    async waitFor(predicate, ms = 10_000) {
      const deadline = Date.now() + ms;
      const met = () => {
        decodeQueued();
        return predicate(received);
      };
      while (!met()) {
        if (Date.now() > deadline)
          throw new Error(
            `OTLP receiver: condition not met in ${ms} ms; spans: ${received.map((s) => s.name).join(', ')}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return [...received];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}
