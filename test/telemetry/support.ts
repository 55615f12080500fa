import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { type Attributes, context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  type MetricData,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { type ClientOptions, PartnerOrders } from "partner-orders";
import { createSandbox, type Sandbox } from "partner-orders/testing";
import { overUndici } from "../support/wire";

/**
 * OpenTelemetry's SDK as a partner sets it up, in memory: spans kept by an in-memory exporter,
 * metrics read on demand, the active span carried by AsyncLocalStorage, W3C `traceparent`.
 */
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());

/** A metric reader read by the test itself: no timer. */
class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Telemetry {
  spans: InMemorySpanExporter;
  tracerProvider: BasicTracerProvider;
  meterProvider: MeterProvider;
  /** Every metric collected now, by name. */
  metrics(): Promise<Map<string, MetricData>>;
  /** The errors the last collection met (an observable callback that failed). */
  readonly errors: unknown[];
}

export function telemetry(): Telemetry {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(spans)],
  });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const errors: unknown[] = [];
  return {
    spans,
    tracerProvider,
    meterProvider,
    errors,
    async metrics() {
      const collected = await reader.collect();
      errors.splice(0, errors.length, ...collected.errors);
      const { resourceMetrics } = collected;
      const byName = new Map<string, MetricData>();
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
      }
      return byName;
    },
  };
}

/** The data points of `metric` (none when it was never recorded). */
export function points(metric: MetricData | undefined): DataPoint<number | Histogram>[] {
  return (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[];
}

/** The finished spans named `name`. */
export function named(spans: InMemorySpanExporter, name: string): ReadableSpan[] {
  return spans.getFinishedSpans().filter((span) => span.name === name);
}

/** The span `span` is a child of, among the finished ones. */
export function parentOf(
  spans: InMemorySpanExporter,
  span: ReadableSpan,
): ReadableSpan | undefined {
  const id = span.parentSpanContext?.spanId;
  return spans.getFinishedSpans().find((s) => s.spanContext().spanId === id);
}

/** Every attribute value of every span, as text: what a secret must never be found in. */
export function everyAttribute(spans: InMemorySpanExporter): string {
  return JSON.stringify(
    spans.getFinishedSpans().map((s) => [s.name, s.attributes, s.events.map((e) => e.attributes)]),
  );
}

/** The sandbox, reached over the wire of the running vitest project, and the headers it saw. */
export interface Served {
  sandbox: Sandbox;
  /** The headers of every request the service received, oldest first. */
  received: { method: string; path: string; headers: Record<string, string> }[];
  client(options?: ClientOptions): PartnerOrders;
  close(): Promise<void>;
}

/**
 * A sandbox on its auto clock (or a manual one). Over fetch the client's `fetch` records each request; over undici
 * a loopback server does, in front of the sandbox, so the SDK's default wire sends for real.
 */
export async function served(t: Telemetry, clock: "auto" | "manual" = "auto"): Promise<Served> {
  const sandbox = createSandbox({ clock, syncWaitMs: 0 });
  const received: Served["received"] = [];
  const record = (method: string, url: string, headers: Headers) => {
    const path = new URL(url, "http://x").pathname;
    received.push({ method, path, headers: Object.fromEntries(headers) });
  };
  let baseUrl = sandbox.baseUrl;
  let close = async () => {};
  let fetch: typeof globalThis.fetch | undefined = ((request: Request) => {
    record(request.method, request.url, request.headers);
    return sandbox.fetch(request);
  }) as typeof globalThis.fetch;
  if (overUndici) {
    fetch = undefined;
    const server = createServer(async (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string") headers.set(name, value);
      }
      record(req.method ?? "GET", req.url ?? "/", headers);
      const answer = await sandbox.fetch(req.url ?? "/", {
        method: req.method ?? "GET",
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      res.writeHead(answer.status, [...answer.headers].flat());
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
    server.unref();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    };
  }
  return {
    sandbox,
    received,
    client: (options = {}) =>
      new PartnerOrders({
        ...sandbox.credentials,
        baseUrl,
        ...(fetch ? { fetch } : {}),
        clock: sandbox.clock,
        telemetry: { tracerProvider: t.tracerProvider, meterProvider: t.meterProvider },
        ...options,
      }),
    close: async () => {
      await close();
      await sandbox.close();
    },
  };
}

/** The attributes of `span`, for `toMatchObject`. */
export function attributesOf(span: ReadableSpan | undefined): Attributes {
  return span?.attributes ?? {};
}

export { trace };
