import { metrics, trace } from "@opentelemetry/api";
import { PartnerOrders, PartnerOrdersError } from "partner-orders";
import { afterEach, describe, expect, it } from "vitest";
import { errorType, safeUrl } from "../../src/core/telemetry";
import { APIError, APITimeoutError } from "../../src/index";
import { named, points, served, telemetry } from "./support";

afterEach(() => {
  trace.disable();
  metrics.disable();
});

describe("the telemetry option", () => {
  it("refuses what is no provider, with a typed error and before anything is sent", () => {
    const base = { baseUrl: "https://api.example.com", clientId: "id", clientSecret: "secret" };
    for (const telemetry of [{ tracerProvider: {} }, { meterProvider: { getMeter: 1 } }]) {
      expect(() => new PartnerOrders({ ...base, telemetry } as never)).toThrow(PartnerOrdersError);
    }
    expect(() => new PartnerOrders({ ...base, telemetry: false })).not.toThrow();
  });

  it("uses the global providers when none is given (registered before the client is made)", async () => {
    const t = telemetry();
    trace.setGlobalTracerProvider(t.tracerProvider);
    metrics.setGlobalMeterProvider(t.meterProvider);
    const s = await served(t);
    try {
      const client = s.client({ telemetry: {} });
      await client.me();
      expect(named(t.spans, "partner-orders getMe")).toHaveLength(1);
      const duration = (await t.metrics()).get("http.client.request.duration");
      expect(points(duration).length).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });

  it("without any provider registered, calls go on untraced and send no traceparent", async () => {
    const t = telemetry();
    const s = await served(t);
    try {
      const client = s.client({ telemetry: undefined });
      await trace.getTracer("x").startActiveSpan("outer", async (span) => {
        await client.me();
        span.end();
      });
      expect(t.spans.getFinishedSpans()).toHaveLength(0);
      expect(s.received.every((r) => r.headers.traceparent === undefined)).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe("what attributes may show", () => {
  it("url.full keeps the path and plain query, blanks credentials and signature-like values", () => {
    expect(safeUrl("https://api.example.com/v1/orders?siteId=101&cursor=abc")).toBe(
      "https://api.example.com/v1/orders?siteId=101&cursor=abc",
    );
    expect(
      safeUrl(
        "https://user:pw@api.example.com/x?access_token=t0k&sig=s1g&X-Amz-Signature=a&limit=2",
      ),
    ).toBe(
      "https://REDACTED:REDACTED@api.example.com/x?access_token=REDACTED&sig=REDACTED&X-Amz-Signature=REDACTED&limit=2",
    );
    expect(safeUrl("not a url")).toBe("");
  });

  it("error.type is the problem's code, else the status, and bounded", () => {
    const error = (code: string | undefined, status = 503) =>
      new APIError({
        status,
        method: "GET",
        path: "/v1/me",
        headers: new Headers(),
        problem: code === undefined ? undefined : ({ code } as never),
      });
    expect(errorType(error("rate_limit_exceeded", 429))).toBe("rate_limit_exceeded");
    expect(errorType(error(undefined, 502))).toBe("502");
    expect(errorType(error("x".repeat(10_000)))).toHaveLength(100);
    expect(errorType(new APITimeoutError())).toBe("timeout");
    expect(errorType(new TypeError("boom"))).toBe("_OTHER");
  });
});
