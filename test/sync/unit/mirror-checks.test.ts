import { PartnerOrders } from "partner-orders";
import { MirrorError, OrderMirror, sqliteStore } from "partner-orders/sync";
import { afterEach, describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { listed, type Setup, setup } from "../support.js";

/** What the mirror refuses before it reads anything: its options, events and order numbers. */
const client = new PartnerOrders({
  baseUrl: "https://orders.invalid",
  clientId: "id",
  clientSecret: "secret",
});
const mirrors: OrderMirror[] = [];
function mirror(options: Record<string, unknown> = {}): OrderMirror {
  const made = new OrderMirror({ client, store: sqliteStore(":memory:"), ...options });
  mirrors.push(made);
  return made;
}
let running: Setup | undefined;
afterEach(async () => {
  for (const m of mirrors.splice(0)) await m.close();
  await running?.mirror.close();
  running = undefined;
});

describe("OrderMirror options", () => {
  it("needs a client and a store", () => {
    const message = "OrderMirror needs { client, store }.";
    expect(() => new OrderMirror(undefined as never)).toThrow(new PartnerOrdersError(message));
    expect(() => new OrderMirror({ client } as never)).toThrow(new PartnerOrdersError(message));
    expect(() => new OrderMirror({ store: sqliteStore(":memory:") } as never)).toThrow(
      new PartnerOrdersError(message),
    );
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses a concurrency of %s", (concurrency) => {
    expect(() => mirror({ concurrency })).toThrow(
      new PartnerOrdersError("concurrency must be a whole number >= 1."),
    );
  });

  it("accepts a concurrency of 1", () => {
    expect(mirror({ concurrency: 1 })).toBeInstanceOf(OrderMirror);
  });

  it.each(["sweepIntervalMs", "openOrderIntervalMs", "sweepLeaseMs"])(
    "refuses a %s that is not a positive number",
    (name) => {
      for (const value of [0, -5, Number.POSITIVE_INFINITY, Number.NaN]) {
        expect(() => mirror({ [name]: value })).toThrow(
          new PartnerOrdersError(`${name} must be a positive number.`),
        );
      }
      expect(mirror({ [name]: 0.5 })).toBeInstanceOf(OrderMirror);
    },
  );
});

describe("handleEvent refuses what is no event", () => {
  const invalid = (what: string) =>
    new MirrorError("invalid_event", `handleEvent: the event ${what}; nothing was read.`);

  it.each([
    [null, "must be a webhook event (from verifyWebhook or parseWebhook)"],
    ["text", "must be a webhook event (from verifyWebhook or parseWebhook)"],
    [[], "must be a webhook event (from verifyWebhook or parseWebhook)"],
    [{ eventId: 5, type: "order.status_changed" }, "its eventId must be a string, not empty"],
    [{ eventId: "", type: "order.status_changed" }, "its eventId must be a string, not empty"],
    [{ eventId: "e1", type: 5 }, "its type must be a string"],
    [
      { eventId: "e1", type: "order.status_changed", orderNumber: 0 },
      "its orderNumber must be a positive whole number, not 0",
    ],
    [
      { eventId: "e1", type: "order.status_changed", orderNumber: 1.5 },
      "its orderNumber must be a positive whole number, not 1.5",
    ],
    [
      { eventId: "e1", type: "order.status_changed", orderNumber: "x".repeat(50) },
      `its orderNumber must be a positive whole number, not ${"x".repeat(40)}`,
    ],
  ])("%j", async (event, what) => {
    const error = await mirror()
      .handleEvent(event as never)
      .catch((e: unknown) => e);
    expect(error).toEqual(invalid(what));
    expect((error as MirrorError).code).toBe("invalid_event");
  });

  it("a test event or a type that names nothing does nothing", async () => {
    const m = mirror();
    await expect(
      m.handleEvent({ eventId: "e1", type: "webhook.test", test: true } as never),
    ).resolves.toBeUndefined();
    await expect(
      m.handleEvent({ eventId: "e2", type: "something.unknown", orderNumber: 5 } as never),
    ).resolves.toBeUndefined();
  });

  it("an event of a site not mirrored is passed over", async () => {
    const m = mirror({ siteIds: [101] });
    await expect(
      m.handleEvent({
        eventId: "e3",
        type: "order.status_changed",
        orderNumber: 5,
        siteId: 202,
      } as never),
    ).resolves.toBeUndefined();
  });
});

describe("refresh and a closed mirror", () => {
  it.each([
    [0, "0"],
    [-3, "-3"],
    [2.5, "2.5"],
    [Number.MAX_SAFE_INTEGER + 1, "9007199254740992"],
    ["1".repeat(60), "1".repeat(40)],
  ])("refresh refuses %s", async (value, shown) => {
    await expect(mirror().refresh(value as never)).rejects.toThrow(
      new PartnerOrdersError(`refresh needs an order number (a positive integer), not ${shown}.`),
    );
  });

  it("a closed mirror refuses sync, refresh and events", async () => {
    const m = mirror();
    await m.close();
    await m.close();
    const closed = new MirrorError("mirror_closed", "This OrderMirror was closed; make a new one.");
    await expect(m.sync()).rejects.toEqual(closed);
    await expect(m.refresh(5)).rejects.toEqual(closed);
    await expect(
      m.handleEvent({ eventId: "e1", type: "order.status_changed", orderNumber: 5 } as never),
    ).rejects.toEqual(closed);
  });

  it("refresh reads one order into the store, and get() returns it", async () => {
    running = setup();
    const [n] = await listed(running.client);
    expect(await running.mirror.get(n as number)).toBeUndefined();
    const changes = await running.mirror.refresh(n as number);
    expect(changes.map((c) => c.type)).toContain("order.added");
    const got = await running.mirror.get(n as number);
    expect(got?.orderNumber).toBe(n);
    expect(got?.unresolvable).toBe(false);
    expect(Array.isArray(got?.items)).toBe(true);
    expect(Array.isArray(got?.shipments)).toBe(true);
  });
});
