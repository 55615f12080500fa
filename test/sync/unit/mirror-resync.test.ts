import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MirrorError, SweepHeldError, sqliteStore } from "partner-orders/sync";
import type { WebhookEvent } from "partner-orders/webhooks";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { resyncSites } from "../../../src/sync/resync";
import { quiet } from "../../support/logger.js";
import { type Setup, setup } from "../support.js";

/** The mirror's resync() and what handleEvent learns, on the sandbox and an in-memory store. */
const made: Setup[] = [];
afterEach(async () => {
  for (const s of made.splice(0)) {
    await s.mirror.close();
    await s.sandbox.close();
  }
});
const dir = mkdtempSync(join(tmpdir(), "po-mirror-resync-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
function make(options: Parameters<typeof setup>[1] = {}, path = ":memory:"): Setup {
  const s = setup(path, { logger: quiet, ...options });
  made.push(s);
  return s;
}

describe("resyncSites", () => {
  const kept = new Set([12, 14]);
  it("defaults to the mirror's sites, and keeps given ones once each", () => {
    const defaults = [12, 14];
    expect(resyncSites(undefined, kept, defaults)).toBe(defaults);
    expect(resyncSites([14, 12, 14], kept, defaults)).toEqual([14, 12]);
    expect(resyncSites([99], undefined, [undefined])).toEqual([99]);
  });

  it.each([
    [[], "non-empty list"],
    [[0], "positive whole numbers"],
    [[1.5], "positive whole numbers"],
    [["12"], "positive whole numbers"],
    [12, "non-empty list"],
    [[12, -1], "positive whole numbers"],
  ])("refuses %j with invalid_sites", (siteIds, message) => {
    const error = (() => {
      try {
        resyncSites(siteIds, kept, [12, 14]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MirrorError);
    expect(error).toMatchObject({ code: "invalid_sites" });
    expect((error as Error).message).toContain(message);
  });

  it("refuses a site the mirror does not keep, naming it and the mirror's sites", () => {
    expect(() => resyncSites([12, 13], kept, [12, 14])).toThrow(
      expect.objectContaining({ code: "invalid_sites" }),
    );
    expect(() => resyncSites([12, 13], kept, [12, 14])).toThrow(
      "resync: site 13 is not one this mirror keeps (siteIds 12, 14). Resync the mirror's own sites, or give the mirror that site.",
    );
  });
});

describe("OrderMirror.resync", () => {
  it("another process holding the sweep: SweepHeldError with the report, recorded as the last error", async () => {
    const path = join(dir, `${crypto.randomUUID()}.db`);
    const s = make({}, path);
    await s.mirror.sync();
    // A live holder on another host: only its lease's expiry would free the sweep.
    const other = sqliteStore(path);
    await other.open();
    const now = s.sandbox.clock.now();
    expect(await other.lease("sweep", "elsewhere/4242/x", now, now + 60_000)).toBe(true);
    const before = s.sandbox.requests.length;
    const error = await s.mirror.resync().catch((e: unknown) => e);
    await other.close();
    expect(error).toBeInstanceOf(SweepHeldError);
    expect(error).toMatchObject({ holder: "elsewhere/4242/x", code: "sweep_held" });
    expect((error as SweepHeldError).report).toMatchObject({ ordersSeen: 0, changesWritten: 0 });
    expect(s.sandbox.requests.length).toBe(before);
    expect((await s.mirror.status()).lastError).toMatchObject({ code: "sweep_held" });
  });

  it("gives the sweep lease back when it ends, and refuses once the mirror is closed", async () => {
    const s = make();
    const report = await s.mirror.resync({ siteIds: undefined });
    expect(report.ordersAdded).toBeGreaterThan(0);
    expect(report.ordersSeen).toBe(report.ordersAdded);
    expect((await s.mirror.status()).sweepHolder).toBeNull();
    await s.mirror.close();
    await expect(s.mirror.resync()).rejects.toMatchObject({ code: "mirror_closed" });
  });
});

describe("handleEvent learns the partnerOrderId", () => {
  const event = (orderNumber: number, siteId: number, partnerOrderId: unknown): WebhookEvent =>
    ({
      eventId: crypto.randomUUID(),
      type: "order.status_changed",
      occurredAt: "2026-11-26T00:00:00Z",
      siteId,
      orderNumber,
      partnerOrderId,
    }) as unknown as WebhookEvent;

  it("from the event, written with the read it starts; one out of shape is ignored", async () => {
    const s = make();
    const n = s.sandbox.admin.placeOrder({ lines: 1 });
    const m = s.sandbox.admin.placeOrder({ lines: 1 });
    await s.mirror.sync();
    const site = (await s.mirror.get(n))?.siteId as number;
    await s.mirror.handleEvent(event(n, site, "po-n"));
    await s.mirror.handleEvent(event(m, site, 42));
    await s.mirror.handleEvent(event(m, site, "x".repeat(101)));
    expect((await s.mirror.get(n))?.partnerOrderId).toBe("po-n");
    expect((await s.mirror.get(m))?.partnerOrderId).toBeUndefined();
    const found: number[] = [];
    for await (const o of s.mirror.orders({ partnerOrderId: "po-n" })) found.push(o.orderNumber);
    expect(found).toEqual([n]);
  });

  it("not from an event of a site the mirror does not keep", async () => {
    const s = make({}, join(dir, `${crypto.randomUUID()}.db`));
    const n = s.sandbox.admin.placeOrder({ lines: 1 });
    await s.mirror.sync();
    const site = (await s.mirror.get(n))?.siteId as number;
    const narrow = s.restart({ siteIds: [site + 1_000] });
    made.push({ ...s, mirror: narrow });
    await s.mirror.close();
    await narrow.handleEvent(event(n, site, "po-other-site"));
    expect((await narrow.get(n))?.partnerOrderId).toBeUndefined();
  });
});
