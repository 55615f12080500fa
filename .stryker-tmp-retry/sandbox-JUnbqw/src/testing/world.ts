// @ts-nocheck
import { parseWebhook, type WebhookEvent } from "../webhooks/events";
import type { Sandbox } from "./sandbox";
import { prng } from "./seed";

/** What {@link createWorld} did, so a test can check that a mirror saw every one of them. */
export interface WorldHistory {
  /** Orders placed. */
  placed: number[];
  /** `order:shipment` of every shipment shipped. */
  shipped: string[];
  /** `order:shipment` of every shipment delivered. */
  delivered: string[];
  /** `order:item` of every line cancelled. */
  cancelled: string[];
  /** Orders whose status changed (an order may appear more than once). */
  statusChanged: number[];
  /** `order:item` of every silent quantity change. */
  quantities: string[];
  /** Orders hidden (they answer 404). */
  hidden: number[];
}

/** Options of {@link createWorld}. */
export interface WorldOptions {
  /** The same seed gives the same world. @default 1 */
  seed?: number;
  /** Sites orders are placed on. @default [101, 102] */
  siteIds?: number[];
}

/**
 * A world that goes on changing: orders placed, shipped with tracking, delivered, lines cancelled,
 * statuses changed and orders closed, quantities changed silently, orders hidden (they then answer
 * 404). Deterministic by seed; every change is a staff action of `sandbox.admin`, so webhooks go out
 * exactly as the service would send them. Changes touch only orders the world placed and that are
 * still open.
 */
export function createWorld(sandbox: Sandbox, options: WorldOptions = {}) {
  const rand = prng(options.seed ?? 1);
  const pick = <T>(list: readonly T[]): T | undefined => list[Math.floor(rand() * list.length)];
  const siteIds = options.siteIds ?? [101, 102];
  const history: WorldHistory = {
    placed: [],
    shipped: [],
    delivered: [],
    cancelled: [],
    statusChanged: [],
    quantities: [],
    hidden: [],
  };
  interface Tracked {
    orderNumber: number;
    shipments: number;
    shipped: number[];
    delivered: number[];
    cancelled: number[];
  }
  const open = new Map<number, Tracked>();

  const actions: [number, () => void][] = [
    [
      3,
      () => {
        const lines = 1 + Math.floor(rand() * 3);
        const orderNumber = sandbox.admin.placeOrder({ siteId: pick(siteIds), lines });
        history.placed.push(orderNumber);
        open.set(orderNumber, {
          orderNumber,
          shipments: 0,
          shipped: [],
          delivered: [],
          cancelled: [],
        });
      },
    ],
    [
      3,
      () => {
        const o = pick([...open.values()]);
        if (!o) return;
        const shipmentNumber = o.shipments + 1;
        o.shipments = shipmentNumber;
        sandbox.admin.shipShipment(o.orderNumber, shipmentNumber, {
          packages: [`1ZW${o.orderNumber}${shipmentNumber}`],
        });
        o.shipped.push(shipmentNumber);
        history.shipped.push(`${o.orderNumber}:${shipmentNumber}`);
      },
    ],
    [
      2,
      () => {
        const o = pick([...open.values()].filter((x) => x.shipped.length > x.delivered.length));
        const shipmentNumber = o?.shipped.find((n) => !o.delivered.includes(n));
        if (!o || shipmentNumber === undefined) return;
        sandbox.admin.deliverShipment(o.orderNumber, shipmentNumber);
        o.delivered.push(shipmentNumber);
        history.delivered.push(`${o.orderNumber}:${shipmentNumber}`);
      },
    ],
    [
      1,
      () => {
        const o = pick([...open.values()]);
        const item = o && pick(itemsOf(o.orderNumber).filter((n) => !o.cancelled.includes(n)));
        if (!o || item === undefined) return;
        sandbox.admin.cancelLine(o.orderNumber, item);
        o.cancelled.push(item);
        history.cancelled.push(`${o.orderNumber}:${item}`);
      },
    ],
    [
      1,
      () => {
        const o = pick([...open.values()]);
        const item = o && pick(itemsOf(o.orderNumber));
        if (!o || item === undefined) return;
        sandbox.admin.setItemQuantity(o.orderNumber, item, 1 + Math.floor(rand() * 900));
        history.quantities.push(`${o.orderNumber}:${item}`);
      },
    ],
    [
      2,
      () => {
        const o = pick([...open.values()]);
        if (!o) return;
        const closing = rand() < 0.4;
        sandbox.admin.setOrderStatus(
          o.orderNumber,
          closing ? "Delivered" : (pick(["In Production", "On Hold", "Shipped"]) as string),
          {
            closed: closing,
          },
        );
        history.statusChanged.push(o.orderNumber);
        if (closing) open.delete(o.orderNumber);
      },
    ],
    [
      0.3,
      () => {
        const o = pick([...open.values()]);
        if (!o) return;
        sandbox.admin.hideOrder(o.orderNumber);
        history.hidden.push(o.orderNumber);
        open.delete(o.orderNumber);
      },
    ],
  ];
  const total = actions.reduce((sum, [weight]) => sum + weight, 0);
  // Item numbers of an order, read from the service as a partner would see them.
  const itemNumbers = new Map<number, number[]>();
  const itemsOf = (orderNumber: number) => itemNumbers.get(orderNumber) ?? [];

  return {
    /** Everything the world did so far. */
    history,
    /** Orders the world placed that are still open (not closed, not hidden). */
    get openOrders(): number[] {
      return [...open.keys()];
    },
    /** Places `count` orders at once (the world's starting point). */
    async place(count: number): Promise<void> {
      for (let i = 0; i < count; i++) (actions[0] as [number, () => void])[1]();
      await this.learnItems();
    },
    /** Makes `count` random changes. */
    async step(count = 1): Promise<void> {
      for (let i = 0; i < count; i++) {
        let roll = rand() * total;
        for (const [weight, act] of actions) {
          roll -= weight;
          if (roll < 0) {
            act();
            break;
          }
        }
      }
      await this.learnItems();
    },
    /** Reads the item numbers of new orders from the service (the world names lines by them). */
    async learnItems(): Promise<void> {
      for (const orderNumber of open.keys()) {
        if (itemNumbers.has(orderNumber)) continue;
        const response = await sandbox.fetch(`/v1/orders/${orderNumber}/items?limit=200`, {
          headers: { authorization: `Bearer ${await token()}` },
        });
        const body = (await response.json()) as { items: { itemNumber: number }[] };
        itemNumbers.set(
          orderNumber,
          body.items.map((i) => i.itemNumber),
        );
      }
    },
  };

  async function token(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: sandbox.credentials.clientId,
      client_secret: sandbox.credentials.clientSecret,
      scope: "partner-api/orders:read",
    });
    const response = await sandbox.fetch("/oauth2/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    return ((await response.json()) as { access_token: string }).access_token;
  }
}

/** Options of {@link chaoticWebhooks}: how unreliable delivery is (API document, Events rules 2-4). */
export interface ChaosOptions {
  /** The same seed drops, duplicates and reorders the same deliveries. @default 1 */
  seed?: number;
  /** Share of deliveries never made. @default 0 */
  drop?: number;
  /** Share of deliveries made twice. @default 0 */
  duplicate?: number;
  /** Deliver each batch in a shuffled order. @default false */
  reorder?: boolean;
}

/**
 * A webhook endpoint as unreliable as the API document allows: register `fetch` as the endpoint
 * (`sandbox.webhooks.register({ url, fetch })`); deliveries are held until `flush(onEvent)`, which
 * hands each event to `onEvent` with some dropped, some twice, in shuffled order.
 */
export function chaoticWebhooks(options: ChaosOptions = {}) {
  const rand = prng(options.seed ?? 1);
  let held: WebhookEvent[] = [];
  return {
    /** The endpoint: acknowledges at once (2xx) and holds the event. */
    fetch: async (request: Request): Promise<Response> => {
      held.push(parseWebhook(await request.text()));
      return new Response(null, { status: 204 });
    },
    /** Delivers what is held, with the chosen drops, duplicates and order. */
    async flush(onEvent: (event: WebhookEvent) => Promise<unknown> | unknown): Promise<void> {
      const batch = held;
      held = [];
      const out: WebhookEvent[] = [];
      for (const event of batch) {
        if (rand() < (options.drop ?? 0)) continue;
        out.push(event);
        if (rand() < (options.duplicate ?? 0)) out.push(event);
      }
      if (options.reorder) {
        for (let i = out.length - 1; i > 0; i--) {
          const j = Math.floor(rand() * (i + 1));
          [out[i], out[j]] = [out[j] as WebhookEvent, out[i] as WebhookEvent];
        }
      }
      await Promise.all(out.map((event) => onEvent(event)));
    },
  };
}
