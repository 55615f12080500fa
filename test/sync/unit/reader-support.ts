import { sqliteStore } from "../../../src/sync/stores/sqlite";
import type { MirrorStore } from "../../../src/sync/types";

type Row = Record<string, unknown>;

/** What the fake service answers for one order; an Error is thrown instead. */
export interface FakeOrder {
  order: Row | Error;
  items: Row[][] | Error;
  shipments: Row[][] | Error;
}

export const orderRow = (n: number, extra: Row = {}): Row => ({
  orderNumber: n,
  status: "In Production",
  siteId: 101,
  closed: false,
  ...extra,
});

/** A client answering `orders.get`, `orders.items` and `orders.shipments` from `orders`, recording each call. */
export function fakeClient(orders: Map<number, FakeOrder>) {
  const calls: string[] = [];
  /** Resolves the calls of `get` held back by `hold`. */
  let gate: Promise<void> | undefined;
  let active = 0;
  let maxActive = 0;
  const pages = (rows: Row[][] | Error) => ({
    async *pages() {
      if (rows instanceof Error) throw rows;
      for (const data of rows) yield { data };
    },
  });
  const client = {
    orders: {
      async get(n: number) {
        calls.push(`get ${n}`);
        active++;
        maxActive = Math.max(maxActive, active);
        try {
          if (gate) await gate;
          const o = orders.get(n)?.order;
          if (o instanceof Error) throw o;
          return o;
        } finally {
          active--;
        }
      },
      items(n: number, options: { limit: number }) {
        calls.push(`items ${n} ${options.limit}`);
        return pages(orders.get(n)?.items ?? []);
      },
      shipments(n: number, options: { limit: number }) {
        calls.push(`shipments ${n} ${options.limit}`);
        return pages(orders.get(n)?.shipments ?? []);
      },
    },
  };
  return {
    client,
    calls,
    get maxActive() {
      return maxActive;
    },
    hold() {
      let release = () => {};
      gate = new Promise((resolve) => {
        release = () => {
          gate = undefined;
          resolve();
        };
      });
      return release;
    },
  };
}

/** An open in-memory SQLite store, with some methods replaced by the test's. */
export async function memoryStore(overrides: Partial<MirrorStore> = {}): Promise<MirrorStore> {
  const store = sqliteStore(":memory:");
  await store.open();
  return new Proxy(store, {
    get(target, key) {
      if (key in overrides) return overrides[key as keyof MirrorStore];
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
