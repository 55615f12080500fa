import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpanStatusCode } from "@opentelemetry/api";
import { type MirrorStore, OrderMirror, sqliteStore } from "partner-orders/sync";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { quiet } from "../support/logger";
import { named, parentOf, points, type Served, served, type Telemetry, telemetry } from "./support";

let t: Telemetry;
let s: Served;
let dir: string;
let mirror: OrderMirror;
let store: MirrorStore;
beforeEach(async () => {
  t = telemetry();
  s = await served(t, "manual");
  dir = mkdtempSync(join(tmpdir(), "otel-mirror-"));
  store = sqliteStore(join(dir, "orders.db"));
  mirror = new OrderMirror({
    client: s.client(),
    store,
    clock: s.sandbox.clock,
    logger: quiet,
    // A site of a few orders: a pass of the whole account takes seconds, and proves no more here.
    siteIds: [s.sandbox.fixtures.sites.notProvisioned],
  });
});
afterEach(async () => {
  await mirror.close();
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const MINUTE = 60_000;

describe("the mirror's traces", () => {
  it("a pass is a span, the caller's child; each order read a span under it, its requests under that", async () => {
    const tracer = t.tracerProvider.getTracer("the-application");
    const { report, caller } = await tracer.startActiveSpan("nightly", async (span) => {
      const done = await mirror.sync();
      span.end();
      return { report: done, caller: span };
    });
    const [pass] = named(t.spans, "partner-orders sync");
    expect(pass?.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(pass?.attributes).toMatchObject({
      "partner_orders.orders.seen": report.ordersSeen,
      "partner_orders.changes": report.changesWritten,
      "partner_orders.requests": report.requests,
    });
    const reads = named(t.spans, "partner-orders read order");
    expect(reads.length).toBeGreaterThan(5);
    expect(reads.length).toBe(report.ordersAdded);
    for (const read of reads) expect(parentOf(t.spans, read)).toBe(pass);
    expect(reads[0]?.attributes).toMatchObject({ "partner_orders.change.cause": "sweep" });
    expect(reads.map((r) => r.attributes["partner_orders.order_number"]).sort()).toEqual(
      [...new Set(reads.map((r) => r.attributes["partner_orders.order_number"]))].sort(),
    );
    const pages = named(t.spans, "partner-orders listOrders");
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) expect(parentOf(t.spans, page)).toBe(pass);
    const items = named(t.spans, "partner-orders listOrderItems");
    expect(items.length).toBeGreaterThanOrEqual(reads.length);
    for (const list of items)
      expect(parentOf(t.spans, list)?.name).toBe("partner-orders read order");
    const changes = reads.reduce(
      (sum, r) => sum + Number(r.attributes["partner_orders.changes"]),
      0,
    );
    expect(changes).toBe(report.changesWritten);
  });

  it("a pass that fails ends its span with the error's type", async () => {
    s.sandbox.faults.inject({ method: "GET", path: "/v1/orders", status: 403, times: 10 });
    await expect(mirror.sync()).rejects.toThrow();
    const [pass] = named(t.spans, "partner-orders sync");
    expect(pass?.status.code).toBe(SpanStatusCode.ERROR);
    expect(pass?.attributes["error.type"]).toBeTypeOf("string");
  });
});

describe("the passes of run()", () => {
  it("each pass is a span saying what the sweep did: swept, then not due while a sweep is recent", async () => {
    const first = new AbortController();
    await mirror.run({ signal: first.signal, onPass: () => first.abort() });
    expect(named(t.spans, "partner-orders sync").map((p) => p.attributes)).toEqual([
      { "partner_orders.sweep.outcome": "swept" },
    ]);
    const again = new AbortController();
    const running = mirror.run({ signal: again.signal });
    await vi.waitFor(() => expect(named(t.spans, "partner-orders sync")).toHaveLength(2));
    again.abort();
    await running;
    expect(named(t.spans, "partner-orders sync")[1]?.attributes).toEqual({
      "partner_orders.sweep.outcome": "not-due",
    });
  });
});

describe("the mirror's metrics", () => {
  it("changes written by type; open, due and late orders, invalid ones and consumer lag read from status()", async () => {
    const report = await mirror.sync();
    let metrics = await t.metrics();
    const changes = points(metrics.get("partner_orders.mirror.changes"));
    const byType = (type: string) =>
      changes
        .filter((p) => p.attributes["partner_orders.change.type"] === type)
        .reduce((sum, p) => sum + Number(p.value), 0);
    expect(byType("order.added")).toBe(report.ordersAdded);
    expect(changes.reduce((sum, p) => sum + Number(p.value), 0)).toBe(report.changesWritten);
    expect(metrics.get("partner_orders.mirror.changes")?.descriptor.unit).toBe("{change}");
    const status = await mirror.status();
    const value = (name: string) => points(metrics.get(name)).map((p) => p.value);
    expect(value("partner_orders.mirror.orders.open")).toEqual([status.openOrders]);
    expect(value("partner_orders.mirror.orders.due")).toEqual([0]);
    expect(value("partner_orders.mirror.orders.invalid")).toEqual([0]);
    expect(value("partner_orders.mirror.consumer.lag")).toEqual([]);

    s.sandbox.clock.advance(6 * MINUTE);
    const abort = new AbortController();
    let seen = 0;
    for await (const _ of mirror.changes({ consumer: "billing", signal: abort.signal })) {
      if (++seen === 4) break;
    }
    metrics = await t.metrics();
    expect(value("partner_orders.mirror.orders.due")).toEqual([report.ordersAdded]);
    expect(value("partner_orders.mirror.orders.due.lag")).toEqual([60]);
    expect(metrics.get("partner_orders.mirror.orders.due.lag")?.descriptor.unit).toBe("s");
    const [lag] = points(metrics.get("partner_orders.mirror.consumer.lag"));
    expect(lag?.attributes).toEqual({ "partner_orders.consumer": "billing" });
    expect(lag?.value).toBe(report.changesWritten - 3);
    const [age] = points(metrics.get("partner_orders.mirror.consumer.lag.age"));
    expect(age?.value).toBe(360);
  });

  it("the poll interval in use and webhook health, as a state set, follow status()", async () => {
    await mirror.sync();
    const value = (metrics: Map<string, unknown>, name: string) =>
      points(metrics.get(name) as never).map((p) => [p.attributes, p.value]);
    const health = (state: string) =>
      ["unknown", "healthy", "degraded"].map((s) => [
        { "partner_orders.webhook.state": s },
        s === state ? 1 : 0,
      ]);
    let metrics = await t.metrics();
    expect(value(metrics, "partner_orders.mirror.poll.interval")).toEqual([[{}, 300]]);
    expect(value(metrics, "partner_orders.mirror.webhook.health")).toEqual(health("unknown"));
    expect(metrics.get("partner_orders.mirror.poll.interval")?.descriptor.unit).toBe("s");

    let order: { siteId: number | null; orderNumber: number } | undefined;
    for await (const o of mirror.orders({ limit: 1 })) order = o;
    await mirror.handleEvent({
      eventId: "evt-telemetry-1",
      type: "order.status_changed",
      occurredAt: new Date(s.sandbox.clock.now()).toISOString(),
      siteId: order?.siteId,
      orderNumber: order?.orderNumber,
    } as never);
    const status = await mirror.status();
    expect(status.webhookHealth.state).toBe("healthy");
    metrics = await t.metrics();
    expect(value(metrics, "partner_orders.mirror.poll.interval")).toEqual([
      [{}, status.pollIntervalMs / 1000],
    ]);
    expect(status.pollIntervalMs).toBe(60 * MINUTE);
    expect(value(metrics, "partner_orders.mirror.webhook.health")).toEqual(health("healthy"));
  });

  it("a closed mirror is no longer read", async () => {
    await mirror.sync();
    await mirror.close();
    const metrics = await t.metrics();
    expect(points(metrics.get("partner_orders.mirror.orders.open"))).toEqual([]);
  });
});

describe("the mirror's instruments", () => {
  it("each has its unit and description", async () => {
    await mirror.sync();
    for await (const _ of mirror.changes({ consumer: "billing" })) break;
    const metrics = await t.metrics();
    const described = (name: string) => {
      const d = metrics.get(name)?.descriptor;
      return [d?.unit, d?.description];
    };
    expect(
      Object.fromEntries(
        [
          "changes",
          "orders.open",
          "orders.due",
          "orders.due.lag",
          "orders.invalid",
          "consumer.lag",
          "consumer.lag.age",
          "poll.interval",
          "webhook.health",
        ].map((name) => [name, described(`partner_orders.mirror.${name}`)]),
      ),
    ).toEqual({
      changes: ["{change}", "Changes the mirror wrote, by type and cause."],
      "orders.open": ["{order}", "Open orders mirrored."],
      "orders.due": ["{order}", "Open orders due for a poll."],
      "orders.due.lag": ["s", "How late the oldest due order's poll is."],
      "orders.invalid": ["{order}", "Orders kept out as invalid."],
      "consumer.lag": ["{change}", "Changes a named consumer has not finished."],
      "consumer.lag.age": [
        "s",
        "How long ago the oldest change a named consumer has not finished was observed.",
      ],
      "poll.interval": ["s", "The longest an open order now waits between polls."],
      "webhook.health": [
        "1",
        "Webhook health as the mirror believes it: 1 for the state it is in, 0 for the others.",
      ],
    });
    const changes = points(metrics.get("partner_orders.mirror.changes"));
    expect(changes.length).toBeGreaterThan(0);
    for (const p of changes) {
      expect(p.attributes["partner_orders.change.cause"]).toBe("sweep");
    }
  });

  /** A mirror of its own on `client`, in a new SQLite file under the test's directory. */
  function mirrorOn(client: ReturnType<typeof s.client>, file: string): OrderMirror {
    return new OrderMirror({
      client,
      store: sqliteStore(join(dir, file)),
      clock: s.sandbox.clock,
      logger: quiet,
      siteIds: [s.sandbox.fixtures.sites.notProvisioned],
    });
  }

  /** A new mirror on `client`, synced once: one sync span and its open orders measured. */
  async function syncedAndMeasured(client: ReturnType<typeof s.client>, file: string) {
    const made = mirrorOn(client, file);
    try {
      await mirror.close();
      await made.sync();
      expect(named(t.spans, "partner-orders sync")).toHaveLength(1);
      const open = points((await t.metrics()).get("partner_orders.mirror.orders.open"));
      const { openOrders } = await made.status();
      expect(openOrders).toBeGreaterThan(0);
      expect(open.map((p) => p.value)).toEqual([openOrders]);
    } finally {
      await made.close();
    }
  }

  it("a mirror made and used at once, while the client still looks for OpenTelemetry, is traced and measured", async () => {
    await syncedAndMeasured(s.client(), "at-once.db");
  });

  it("a mirror made on a client that found OpenTelemetry already is measured too", async () => {
    const client = s.client();
    await client.me();
    await syncedAndMeasured(client, "later.db");
  });

  it("with telemetry: false a mirror records nothing and still syncs", async () => {
    await mirror.close();
    const off = mirrorOn(s.client({ telemetry: false }), "off.db");
    try {
      const report = await off.sync();
      expect(report.ordersAdded).toBeGreaterThan(0);
      expect(t.spans.getFinishedSpans()).toEqual([]);
      expect(points((await t.metrics()).get("partner_orders.mirror.orders.open"))).toEqual([]);
    } finally {
      await off.close();
    }
  });

  it("a store that cannot be read at a collection gives no values and no error; the next one reads again", async () => {
    await mirror.sync();
    const { openOrders } = await mirror.status();
    const open = async () =>
      points((await t.metrics()).get("partner_orders.mirror.orders.open")).map((p) => p.value);
    const reads = store.info.bind(store);
    store.info = () => Promise.reject(new Error("database is locked"));
    expect(await open()).toEqual([]);
    expect(t.errors).toEqual([]);
    store.info = reads;
    expect(await open()).toEqual([openOrders]);
  });

  it("a client with a tracer provider only: passes and reads are traced, nothing is measured", async () => {
    await mirror.close();
    const traced = mirrorOn(
      s.client({ telemetry: { tracerProvider: t.tracerProvider } }),
      "traced.db",
    );
    try {
      const report = await traced.sync();
      expect(report.ordersAdded).toBeGreaterThan(0);
      const reads = named(t.spans, "partner-orders read order");
      expect(reads).toHaveLength(report.ordersAdded);
      expect(reads.every((r) => Number(r.attributes["partner_orders.changes"]) > 0)).toBe(true);
      const mirrorMetrics = [...(await t.metrics()).keys()].filter((name) =>
        name.startsWith("partner_orders.mirror."),
      );
      expect(mirrorMetrics).toEqual([]);
    } finally {
      await traced.close();
    }
  });

  it("a tracer provider that throws costs the traces and metrics, never an error", async () => {
    await mirror.close();
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", note);
    const broken = {
      getTracer() {
        throw new Error("no tracer today");
      },
    };
    const off = new OrderMirror({
      client: s.client({ telemetry: { tracerProvider: broken as never } }),
      store: sqliteStore(join(dir, "broken.db")),
      clock: s.sandbox.clock,
      logger: quiet,
      siteIds: [s.sandbox.fixtures.sites.notProvisioned],
    });
    try {
      const report = await off.sync();
      expect(report.ordersAdded).toBeGreaterThan(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(t.spans.getFinishedSpans()).toEqual([]);
    } finally {
      process.off("unhandledRejection", note);
      await off.close();
    }
  });
});
