import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { NotFoundError } from "partner-orders";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokenFor, validOrder } from "../sandbox/helpers";
import { rejection } from "../support/client";
import {
  attributesOf,
  everyAttribute,
  named,
  parentOf,
  points,
  type Served,
  served,
  type Telemetry,
  telemetry,
} from "./support";

let t: Telemetry;
let s: Served;
beforeEach(async () => {
  t = telemetry();
  s = await served(t);
});
afterEach(() => s.close());

const orderNumber = () => s.sandbox.fixtures.orders.tracking;

/** Runs `work` under a span of the caller's own, as an instrumented application would. */
async function underCallerSpan<T>(work: () => Promise<T>) {
  const tracer = t.tracerProvider.getTracer("the-application");
  return tracer.startActiveSpan("checkout", async (span) => {
    try {
      return { result: await work(), caller: span };
    } finally {
      span.end();
    }
  });
}

describe("traces of the client's calls", () => {
  it("a call is a span named by its operationId, a child of the caller's span, with an HTTP span per attempt", async () => {
    const client = s.client();
    const { caller } = await underCallerSpan(() => client.orders.get(orderNumber()));
    const [call] = named(t.spans, "partner-orders getOrder");
    expect(call).toBeDefined();
    expect(call?.kind).toBe(SpanKind.INTERNAL);
    expect(call?.spanContext().traceId).toBe(caller.spanContext().traceId);
    expect(call?.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    const gets = named(t.spans, "GET").filter((span) => parentOf(t.spans, span) === call);
    expect(gets).toHaveLength(1);
    const [get] = gets;
    expect(get?.kind).toBe(SpanKind.CLIENT);
    const base = new URL(s.client().baseUrl);
    expect(attributesOf(get)).toEqual({
      "http.request.method": "GET",
      "server.address": base.hostname,
      "server.port": Number(base.port || (base.protocol === "http:" ? 80 : 443)),
      "url.full": `${s.client().baseUrl}/v1/orders/${orderNumber()}`,
      "http.response.status_code": 200,
    });
    expect(get?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("the token request is a span of its own under the attempt that needed it", async () => {
    const client = s.client();
    await client.orders.get(orderNumber());
    const [token] = named(t.spans, "partner-orders createToken");
    const attempt = token && parentOf(t.spans, token);
    expect(attempt?.name).toBe("GET");
    expect(parentOf(t.spans, attempt as never)?.name).toBe("partner-orders getOrder");
    const [post] = named(t.spans, "POST");
    expect(post && parentOf(t.spans, post)).toBe(token);
    expect(attributesOf(post)).toMatchObject({
      "http.request.method": "POST",
      "http.response.status_code": 200,
    });
  });

  it("sends W3C traceparent naming the attempt's span, on API and token requests", async () => {
    const client = s.client();
    await underCallerSpan(() => client.orders.get(orderNumber()));
    const byPath = (path: string) => s.received.find((r) => r.path === path)?.headers.traceparent;
    const [get] = named(t.spans, "GET");
    const [post] = named(t.spans, "POST");
    const header = (span: typeof get) =>
      `00-${span?.spanContext().traceId}-${span?.spanContext().spanId}-01`;
    expect(byPath(`/v1/orders/${orderNumber()}`)).toBe(header(get));
    expect(byPath("/oauth2/token")).toBe(header(post));
  });

  it("a retry is another attempt span with http.request.resend_count, the failed one keeps its error.type", async () => {
    const client = s.client();
    await client.me(); // the token first, so only the order's attempts are counted below
    s.sandbox.faults.inject({
      method: "GET",
      path: "/v1/orders/{orderNumber}",
      status: 503,
      times: 2,
    });
    t.spans.reset();
    await client.orders.get(orderNumber());
    const [call] = named(t.spans, "partner-orders getOrder");
    const attempts = named(t.spans, "GET").filter((span) => parentOf(t.spans, span) === call);
    expect(attempts).toHaveLength(3);
    expect(attempts.map((a) => a.attributes["http.request.resend_count"])).toEqual([
      undefined,
      1,
      2,
    ]);
    expect(attempts.map((a) => a.attributes["http.response.status_code"])).toEqual([503, 503, 200]);
    expect(attempts.map((a) => a.attributes["error.type"])).toEqual([
      "service_unavailable",
      "service_unavailable",
      undefined,
    ]);
    expect(attempts[0]?.status.code).toBe(SpanStatusCode.ERROR);
    expect(call?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("a call that fails carries the problem's code as error.type", async () => {
    const client = s.client();
    const error = await rejection(client.orders.get(999_999_999));
    expect(error).toBeInstanceOf(NotFoundError);
    const [call] = named(t.spans, "partner-orders getOrder");
    expect(call?.status.code).toBe(SpanStatusCode.ERROR);
    expect(call?.attributes["error.type"]).toBe("order_not_found");
    const [get] = named(t.spans, "GET");
    expect(get?.attributes).toMatchObject({
      "http.response.status_code": 404,
      "error.type": "order_not_found",
    });
  });

  it("a submission wait is one span with an event per poll, its requests under it", async () => {
    const client = s.client();
    const statuses: string[] = [];
    const submission = await client.submitOrderAndWait(validOrder(), {
      onPoll: (polled) => statuses.push(polled.status),
    });
    expect(submission.status).toBe("completed");
    const [wait] = named(t.spans, "partner-orders submitOrderAndWait");
    expect(wait?.events.map((e) => e.name)).toEqual(statuses.map(() => "poll"));
    expect(wait?.events.map((e) => e.attributes?.["partner_orders.submission.status"])).toEqual(
      statuses,
    );
    expect(wait?.attributes["partner_orders.submission.id"]).toBe(submission.submissionId);
    const [submit] = named(t.spans, "partner-orders submitOrder");
    expect(submit && parentOf(t.spans, submit)).toBe(wait);

    t.spans.reset();
    await client.submissions.wait(submission.submissionId);
    const [resumed] = named(t.spans, "partner-orders submissions.wait");
    const [get] = named(t.spans, "partner-orders getSubmission");
    expect(get && parentOf(t.spans, get)).toBe(resumed);
    expect(resumed?.events).toHaveLength(1);
  });

  it("no attribute or event carries the client secret, the access token or a signature", async () => {
    const client = s.client();
    await client.orders.get(orderNumber());
    await client.submitOrderAndWait(validOrder());
    for await (const _ of client.orders.list({ limit: 2 }).pages()) break;
    const token = await tokenFor(s.sandbox);
    const withToken = s.client({
      accessToken: token,
      clientId: undefined,
      clientSecret: undefined,
    });
    await withToken.orders.get(orderNumber());
    const text = everyAttribute(t.spans);
    expect(text).toContain("partner-orders getOrder");
    expect(text).not.toContain(s.sandbox.credentials.clientSecret);
    expect(text).not.toContain(token);
    expect(text).not.toMatch(/bearer|basic |authorization|client_secret|signature/i);
  });

  it("with telemetry: false nothing is traced and no traceparent is sent", async () => {
    const client = s.client({ telemetry: false });
    await trace.getTracer("x").startActiveSpan("outer", async (span) => {
      await client.orders.get(orderNumber());
      span.end();
    });
    expect(t.spans.getFinishedSpans()).toHaveLength(0);
    expect(s.received.every((r) => r.headers.traceparent === undefined)).toBe(true);
  });
});

describe("metrics of the client's calls", () => {
  it("http.client.request.duration per attempt in seconds, retries by error.type, token mints, the retry budget", async () => {
    const client = s.client();
    s.sandbox.faults.inject({ method: "GET", path: "/v1/orders/{orderNumber}", status: 503 });
    await client.orders.get(orderNumber());
    const metrics = await t.metrics();
    const duration = metrics.get("http.client.request.duration");
    expect(duration?.descriptor.unit).toBe("s");
    const byStatus = points(duration).map((p) => [
      p.attributes["http.request.method"],
      p.attributes["http.response.status_code"],
      p.attributes["error.type"],
      (p.value as { count: number }).count,
    ]);
    expect(byStatus).toEqual(
      expect.arrayContaining([
        ["POST", 200, undefined, 1],
        ["GET", 503, "service_unavailable", 1],
        ["GET", 200, undefined, 1],
      ]),
    );
    expect(byStatus).toHaveLength(3);
    const [retry] = points(metrics.get("partner_orders.client.retries"));
    expect(retry?.value).toBe(1);
    expect(retry?.attributes).toMatchObject({
      "http.request.method": "GET",
      "error.type": "service_unavailable",
    });
    expect(metrics.get("partner_orders.client.retries")?.descriptor.unit).toBe("{retry}");
    const mints = points(metrics.get("partner_orders.client.token.mints"));
    expect(mints.map((p) => [p.attributes["error.type"], p.value])).toEqual([[undefined, 1]]);
    const [budget] = points(metrics.get("partner_orders.client.retry_budget.tokens"));
    // 500 at first, 14 spent on the retry, given back by its success.
    expect(budget?.value).toBe(500);
    // A second client's budget is a series of its own: 14 spent by the retry of a call that failed.
    const costly = s.client({ retry: { budget: { capacity: 100 } }, maxRetries: 1 });
    s.sandbox.faults.inject({ method: "GET", path: "/v1/me", status: 503, times: 2 });
    await rejection(costly.me());
    const after = points((await t.metrics()).get("partner_orders.client.retry_budget.tokens"));
    expect(after.map((p) => p.value).sort((a, b) => Number(a) - Number(b))).toEqual([86, 500]);
    expect(new Set(after.map((p) => p.attributes["partner_orders.retry_budget.id"])).size).toBe(2);
  });
});
