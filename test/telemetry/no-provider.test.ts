import {
  context,
  metrics,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { httpHooks } from "../../src/core/telemetry";
import { systemClock } from "../../src/internal/clock";
import { validOrder } from "../sandbox/helpers";
import { named, parentOf, type Served, served, type Telemetry, telemetry } from "./support";

/** The API's no-op tracer, whose spans a call must not even start when nothing records. */
const noopTracer = Object.getPrototypeOf(
  new ProxyTracerProvider().getDelegate().getTracer("x"),
) as {
  startSpan: (...args: unknown[]) => unknown;
};
const startSpan = noopTracer.startSpan;

/** Contexts entered (the global context manager's `with`) and no-op spans started. */
let entered = 0;
let started = 0;
let t: Telemetry;
let s: Served;
beforeEach(async () => {
  entered = 0;
  started = 0;
  noopTracer.startSpan = function (this: unknown, ...args: unknown[]) {
    started++;
    return startSpan.apply(this, args);
  };
  const manager = new AsyncLocalStorageContextManager().enable();
  const enter = manager.with.bind(manager);
  manager.with = ((...args: Parameters<typeof enter>) => {
    entered++;
    return enter(...args);
  }) as typeof manager.with;
  context.disable();
  context.setGlobalContextManager(manager);
  t = telemetry();
  s = await served(t);
});
afterEach(async () => {
  noopTracer.startSpan = startSpan;
  await s.close();
  trace.disable();
  metrics.disable();
  context.disable();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});

/** A client on the global providers, as a partner's is when a dependency brought the API in. */
const globalClient = () => s.client({ telemetry: {} });

/** A span context as a server's propagator extracts it from an incoming request. */
const incoming: SpanContext = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
};

/** Runs `work` under the caller's span of `t`'s provider. */
function underCallerSpan<T>(work: () => Promise<T>) {
  return t.tracerProvider.getTracer("the-application").startActiveSpan("checkout", async (span) => {
    try {
      return { result: await work(), caller: span };
    } finally {
      span.end();
    }
  });
}

describe("with @opentelemetry/api installed and no provider registered", () => {
  it("a call runs the untraced path: no span started, no context entered, no traceparent", async () => {
    const client = globalClient();
    await client.orders.get(s.sandbox.fixtures.orders.tracking);
    for await (const _ of client.orders.list({ limit: 2 }).pages()) break;
    expect(s.received.map((r) => r.path)).toContain("/oauth2/token");
    expect(started).toBe(0);
    expect(entered).toBe(0);
    expect(s.received.every((r) => r.headers.traceparent === undefined)).toBe(true);
  });

  it("a submission wait runs untraced and still calls the caller's onPoll", async () => {
    const client = globalClient();
    const statuses: string[] = [];
    entered = 0;
    const submission = await client.submitOrderAndWait(validOrder(), {
      onPoll: (polled) => statuses.push(polled.status),
    });
    expect(submission.status).toBe("completed");
    expect(statuses.at(-1)).toBe("completed");
    expect(started).toBe(0);
    expect(entered).toBe(0);
  });

  it("a span context already active (extracted from a request) still goes out as traceparent", async () => {
    const client = globalClient();
    await context.with(trace.setSpanContext(ROOT_CONTEXT, incoming), () => client.me());
    const me = s.received.find((r) => r.path === "/v1/me");
    expect(me?.headers.traceparent).toBe(`00-${incoming.traceId}-${incoming.spanId}-01`);
  });

  it("a provider registered after the client was made is used from the next call on", async () => {
    const client = globalClient();
    await client.me();
    expect(t.spans.getFinishedSpans()).toHaveLength(0);

    trace.setGlobalTracerProvider(t.tracerProvider);
    const { caller } = await underCallerSpan(() =>
      client.orders.get(s.sandbox.fixtures.orders.tracking),
    );
    const [call] = named(t.spans, "partner-orders getOrder");
    expect(call?.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    const [get] = named(t.spans, "GET").filter((span) => parentOf(t.spans, span) === call);
    expect(get).toBeDefined();
    const sent = s.received.at(-1)?.headers.traceparent;
    expect(sent).toBe(`00-${get?.spanContext().traceId}-${get?.spanContext().spanId}-01`);

    // Another provider in its place (the SDK shut down and started again) is followed too.
    trace.disable();
    const again = telemetry();
    trace.setGlobalTracerProvider(again.tracerProvider);
    await client.me();
    expect(named(again.spans, "partner-orders getMe")).toHaveLength(1);
  });

  it("a ProxyTracerProvider given is followed to the delegate it gets later", async () => {
    const proxy = new ProxyTracerProvider();
    const client = s.client({ telemetry: { tracerProvider: proxy } });
    await client.me();
    expect(started + entered).toBe(0);
    proxy.setDelegate(t.tracerProvider);
    await client.me();
    expect(named(t.spans, "partner-orders getMe")).toHaveLength(1);
    expect(entered).toBeGreaterThan(0);
  });
});

describe("idle(): the one check a call makes", () => {
  const setup = {
    clock: systemClock,
    baseUrl: new URL("https://api.example.com"),
    budget: undefined,
  };

  it("is true with the no-op tracer, the no-op meter and no span context active", () => {
    expect(httpHooks({ ...setup, options: {} }).idle()).toBe(true);
  });

  it("is false once a tracer provider is registered, with a meter, or under a valid span context", () => {
    const hooks = httpHooks({ ...setup, options: {} });
    context.with(trace.setSpanContext(ROOT_CONTEXT, incoming), () => {
      expect(hooks.idle()).toBe(false);
    });
    const invalid = { ...incoming, traceId: "0".repeat(32) };
    context.with(trace.setSpanContext(ROOT_CONTEXT, invalid), () => {
      expect(hooks.idle()).toBe(true);
    });
    expect(httpHooks({ ...setup, options: { meterProvider: t.meterProvider } }).idle()).toBe(false);
    expect(httpHooks({ ...setup, options: { tracerProvider: t.tracerProvider } }).idle()).toBe(
      false,
    );
    trace.setGlobalTracerProvider(t.tracerProvider);
    expect(hooks.idle()).toBe(false);
  });
});
