import { PartnerOrders } from "../../../src/client";
import type { Logger } from "../../../src/core/logger";
import { OrderMirror } from "../../../src/sync/mirror";
import { sqliteStore } from "../../../src/sync/stores/sqlite";
import type { MirrorStore, OrderMirrorOptions, StoredOrder } from "../../../src/sync/types";
import { FakeClock } from "../../support/fake-clock";
import { baseUrl, FakeServer, json, type Recorded } from "../../support/fake-server";

type Row = Record<string, unknown>;

/**
 * A FakeClock whose sleeps can end a `run()`: `stopAfter(n)` aborts the loop's signal at its n-th
 * sleep, so a loop that would run for hours of fake time ends after a known number of turns.
 */
export class LoopClock extends FakeClock {
  readonly #abort = new AbortController();
  #limit = Number.POSITIVE_INFINITY;
  /** Called at each sleep, after time moved on (a test's "the world changes now"). */
  onSleep: ((ms: number, count: number) => void) | undefined;

  /** The signal to give `run()`: aborted at the sleep `stopAfter` names, or by `abort()`. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  stopAfter(sleeps: number): this {
    this.#limit = sleeps;
    return this;
  }

  abort(): void {
    this.#abort.abort();
  }

  /**
   * When true, a sleep waits until its signal aborts instead of moving time: a `changes()` loop
   * waiting for news (it looks again every second) would otherwise spin without end.
   */
  park = false;

  override async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.park) {
      return new Promise((_, reject) => {
        const stop = () => reject(signal?.reason);
        if (signal?.aborted) stop();
        signal?.addEventListener("abort", stop, { once: true });
      });
    }
    await super.sleep(ms, signal);
    this.onSleep?.(ms, this.sleeps.length);
    if (this.sleeps.length >= this.#limit) this.#abort.abort();
    if (signal?.aborted) throw signal.reason;
  }
}

export interface Line {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

/** A console-shaped logger that keeps each line, without the `[partner-orders] ` prefix. */
export function recordingLogger(lines: Line[]): Logger {
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, message: message.replace(/^\[partner-orders\] /, ""), fields });
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** Order `n` as the fake service lists and answers it: site 101, open. */
export function orderRow(n: number, extra: Row = {}): Row {
  return { orderNumber: n, siteId: 101, status: "In Production", closed: false, ...extra };
}

/** A stored row for order `n` (as an earlier read left it), open, next poll at `nextPollAt`. */
export function storedRow(n: number, nextPollAt: number | null, extra: Partial<StoredOrder> = {}) {
  return {
    orderNumber: n,
    siteId: 101,
    order: orderRow(n),
    items: [],
    shipments: [],
    closed: false,
    unresolvable: false,
    nextPollAt,
    seenInSweep: 0,
    ...extra,
  } satisfies StoredOrder;
}

export const PARTNER = "partner-7";

/**
 * A fake service behind a real client: the token endpoint, `GET /v1/me`, the order list (one page
 * per entry of `pages`, linked by cursors `c1`, `c2`...) and each order added with `add()`, its
 * items and shipments. Routes can be replaced with `server.on(...)` to script failures.
 */
export class FakeService {
  readonly server = new FakeServer();
  /** The list's pages; by default one page with every order added. */
  pages: Row[][] | undefined;
  readonly #orders = new Map<number, Row>();

  constructor() {
    this.server.on("GET /v1/me", () =>
      json({ partnerId: PARTNER, grantedSiteIds: [101, 102], scopes: [] }),
    );
    this.server.on("GET /v1/orders", (request) => this.#list(request));
  }

  /** Adds order `n` (listed, and answering its own routes with `items` and `shipments`). */
  add(n: number, extra: Row = {}, items: Row[] = [], shipments: Row[] = []): this {
    const row = orderRow(n, extra);
    this.#orders.set(n, row);
    this.server.on(`GET /v1/orders/${n}`, () => json(row));
    this.server.on(`GET /v1/orders/${n}/items`, () => json({ items, nextCursor: null }));
    this.server.on(`GET /v1/orders/${n}/shipments`, () => json({ shipments, nextCursor: null }));
    return this;
  }

  /** API requests (no token requests) as `METHOD /path?query`, in order. */
  get calls(): string[] {
    return this.server.apiRequests.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`);
  }

  /** How many API requests went to paths starting with `prefix` (`GET /v1/orders?` for the list). */
  count(prefix: string): number {
    return this.calls.filter((call) => call.startsWith(prefix)).length;
  }

  #list(request: Recorded) {
    const pages = this.pages ?? [[...this.#orders.values()]];
    const cursor = request.url.searchParams.get("cursor");
    const at = cursor === null ? 0 : Number(cursor.slice(1));
    const next = at + 1 < pages.length ? `c${at + 1}` : null;
    return json({ orders: pages[at] ?? [], nextCursor: next });
  }
}

export interface MirrorHarness {
  mirror: OrderMirror;
  service: FakeService;
  clock: LoopClock;
  client: PartnerOrders;
  store: MirrorStore;
  /** The store under `store`, without the test's replacements. */
  real: MirrorStore;
  /** Store methods a test replaces (a database failing), looked up at each call. */
  overrides: Partial<MirrorStore>;
  lines: Line[];
  /** The warnings logged, as `message` only. */
  readonly warnings: string[];
}

/**
 * An OrderMirror on an in-memory SQLite store, a real client without retries on a fake service,
 * a LoopClock shared by both, and a recording logger.
 */
export function mirrorHarness(options: Partial<OrderMirrorOptions> = {}): MirrorHarness {
  const service = new FakeService();
  const clock = new LoopClock();
  const client = new PartnerOrders({
    baseUrl,
    clientId: "client-id",
    clientSecret: "client-secret",
    fetch: service.server.fetch,
    clock,
    maxRetries: 0,
  });
  const overrides: Partial<MirrorStore> = {};
  const real = sqliteStore(":memory:");
  const store = new Proxy(real, {
    get(target, key) {
      if (key in overrides) return overrides[key as keyof MirrorStore];
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const lines: Line[] = [];
  const mirror = new OrderMirror({
    client,
    store,
    clock,
    logger: recordingLogger(lines),
    ...options,
  });
  return {
    mirror,
    service,
    clock,
    client,
    store,
    real,
    overrides,
    lines,
    get warnings() {
      return lines.filter((l) => l.level === "warn").map((l) => l.message);
    },
  };
}

/** Lets queued reads and the event loop run (no real time). */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}
