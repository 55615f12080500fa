import { afterEach, describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { MirrorError } from "../../../src/sync/errors";
import type { WebhookEvent } from "../../../src/webhooks/events";
import { type MirrorHarness, mirrorHarness } from "./mirror-support";

/** The mirror and its poll policy: options, webhooks announcing, polls finding, status(). */
const made: MirrorHarness[] = [];
function harness(...args: Parameters<typeof mirrorHarness>): MirrorHarness {
  const h = mirrorHarness(...args);
  made.push(h);
  return h;
}
afterEach(async () => {
  for (const h of made.splice(0)) await h.mirror.close();
});

const MIN = 60_000;
const HOUR = 60 * MIN;

function event(orderNumber: number, type = "order.status_changed", id = "e1"): WebhookEvent {
  return {
    eventId: id,
    type,
    occurredAt: "2030-01-01T00:00:00Z",
    siteId: 101,
    orderNumber,
  } as WebhookEvent;
}

/** An order placed now (its date is how the policy knows it is young). */
const placedNow = (h: MirrorHarness) => ({ placedOn: new Date(h.clock.now()).toISOString() });

/** Moves the clock on and runs one pass; resolves with order `n`'s next poll, from now. */
async function passAfter(h: MirrorHarness, ms: number, n = 1): Promise<number | null> {
  h.clock.advance(ms);
  await h.mirror.sync();
  const next = (await h.real.get(n))?.nextPollAt ?? null;
  return next === null ? null : next - h.clock.now();
}

describe("OrderMirror: polling follows webhook health", () => {
  it("refuses a poll policy it does not know and a longest interval below the short one", () => {
    const refused = (options: object) => {
      try {
        harness(options);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const bad = refused({ pollPolicy: "sometimes" });
    expect(bad).toBeInstanceOf(MirrorError);
    expect(bad).toMatchObject({ code: "invalid_argument" });
    expect((bad as Error).message).toBe(
      'pollPolicy must be "adaptive" or "fixed", not "sometimes".',
    );
    const below = refused({ maxOpenOrderIntervalMs: 4 * MIN });
    expect(below).toMatchObject({
      code: "invalid_argument",
      message: "maxOpenOrderIntervalMs (240000) must be at least openOrderIntervalMs (300000).",
    });
    expect(refused({ maxOpenOrderIntervalMs: 0 })).toBeInstanceOf(PartnerOrdersError);
    expect(refused({ maxOpenOrderIntervalMs: Number.NaN })).toBeInstanceOf(PartnerOrdersError);
    expect(refused({ maxOpenOrderIntervalMs: 5 * MIN, pollPolicy: "fixed" })).toBeUndefined();
  });

  it("with no webhook ever, polls every open order every openOrderIntervalMs and says so", async () => {
    const h = harness();
    h.service.add(1);
    await h.mirror.sync();
    expect(await passAfter(h, 5 * MIN)).toBe(5 * MIN);
    expect(await passAfter(h, 5 * MIN)).toBe(5 * MIN);
    expect(await h.mirror.status()).toMatchObject({
      webhookHealth: { state: "unknown", lastEventAt: null },
      pollIntervalMs: 5 * MIN,
      pollPolicy: "adaptive",
    });
  });

  it("once webhooks arrive, open orders are spread over maxOpenOrderIntervalMs, then polled once in it", async () => {
    const h = harness({ maxOpenOrderIntervalMs: 30 * MIN });
    h.service.add(1, placedNow(h)).add(2);
    await h.mirror.sync();
    await h.mirror.handleEvent(event(2));
    const status = await h.mirror.status();
    expect(status).toMatchObject({
      webhookHealth: { state: "healthy", lastEventAt: new Date(h.clock.now()).toISOString() },
      pollIntervalMs: 30 * MIN,
    });
    const waits: number[] = [];
    let wait = 5 * MIN;
    for (let i = 0; i < 5; i++) {
      wait = (await passAfter(h, wait)) as number;
      waits.push(wait);
      // Webhooks keep coming (for another order): no silence.
      await h.mirror.handleEvent(event(2, "order.status_changed", `e${i + 2}`));
    }
    // The first poll after webhooks began lands within the interval (the spread); each after it
    // comes the longest interval on.
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThan(25 * MIN);
    expect(waits.slice(1)).toEqual([30 * MIN, 30 * MIN, 30 * MIN, 30 * MIN]);
  });

  it("a read of items and shipments moves the next poll; a webhook's read of one part does not", async () => {
    const h = harness();
    h.service.add(1).add(2);
    await h.mirror.sync();
    await h.mirror.handleEvent(event(2));
    // Past the spread of the healthy spell's first hour: each order an hour after its read.
    let wait = (await passAfter(h, 5 * MIN)) as number;
    wait = (await passAfter(h, wait)) as number;
    expect(wait).toBe(HOUR);
    const polledAt = h.clock.now();
    // A webhook 10 min on reads the order's shipments only: the poll stays where it was.
    h.clock.advance(10 * MIN);
    await h.mirror.handleEvent(event(1, "shipment.shipped", "e9"));
    expect((await h.real.get(1))?.nextPollAt).toBe(polledAt + HOUR);
    // A sweep 20 min on sees the order's row changed and reads its items and shipments: that read
    // is the order's poll, so the next one is an hour after it.
    h.service.add(1, { projectName: "Renamed" });
    expect(await passAfter(h, 10 * MIN)).toBe(HOUR);
    expect(await h.mirror.get(1)).toMatchObject({ projectName: "Renamed" });
  });

  it("a status change the sweep finds with no webhook brings polling back to openOrderIntervalMs", async () => {
    const h = harness();
    const placed = placedNow(h);
    h.service.add(1, placed).add(2, placed);
    await h.mirror.sync();
    await h.mirror.handleEvent(event(2));
    // Relaxed: the next poll is somewhere in the longest interval (the spread), past the short one.
    const relaxed = (await passAfter(h, 5 * MIN)) as number;
    expect(relaxed).toBeGreaterThan(5 * MIN);
    expect(await passAfter(h, 5 * MIN)).toBe(relaxed - 5 * MIN);
    h.service.add(1, { ...placed, status: "Shipped" });
    expect(await passAfter(h, 15 * MIN)).toBe(5 * MIN);
    // Order 2, relaxed, is polled again now and then every 5 min.
    expect(await passAfter(h, 0, 2)).toBe(5 * MIN);
    expect(await h.mirror.status()).toMatchObject({
      webhookHealth: {
        state: "degraded",
        reason: "unannounced",
        lastUnannounced: { orderNumber: 1, type: "order.changed" },
      },
      pollIntervalMs: 5 * MIN,
    });
  });

  it("a change announced by its webhook keeps webhooks healthy", async () => {
    const h = harness();
    h.service.add(1);
    await h.mirror.sync();
    h.service.add(1, { status: "Shipped" });
    await h.mirror.handleEvent(event(1));
    const relaxed = (await passAfter(h, 5 * MIN)) as number;
    expect(relaxed).toBeGreaterThan(5 * MIN);
    expect(relaxed).toBeLessThan(HOUR);
    expect(await h.mirror.status()).toMatchObject({
      webhookHealth: { state: "healthy" },
      pollIntervalMs: HOUR, // maxOpenOrderIntervalMs's default
    });
  });

  it('"fixed" polls every open order every openOrderIntervalMs, webhooks or not', async () => {
    const h = harness({ pollPolicy: "fixed" });
    h.service.add(1);
    await h.mirror.sync();
    await h.mirror.handleEvent(event(1, "shipment.shipped"));
    for (let i = 0; i < 4; i++) expect(await passAfter(h, 5 * MIN)).toBe(5 * MIN);
    expect(await h.mirror.status()).toMatchObject({
      webhookHealth: { state: "healthy" },
      pollIntervalMs: 5 * MIN,
      pollPolicy: "fixed",
    });
  });
});
