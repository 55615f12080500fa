/** `sync`: the mirror from a shell. */

import type { PartnerOrders } from "../client";
import type { Values } from "./args";
import type { Output } from "./output";

export async function sync(client: PartnerOrders, values: Values, out: Output): Promise<number> {
  const { OrderMirror, postgresStore, sqliteStore } = await import("../sync/index");
  const store = values.postgres
    ? postgresStore(values.postgres)
    : sqliteStore(values.db ?? "orders.db");
  const mirror = new OrderMirror({ client, store });
  const stop = new AbortController();
  // Ctrl-C: the loop ends after the write under way (each write is one transaction).
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const printing = (async () => {
      let count = 0;
      for await (const change of mirror.changes({ signal: stop.signal })) {
        count++;
        if (out.json) out.line(change);
        else out.progress(`${count} changes; last: ${change.type} ${change.orderNumber}`);
      }
    })();
    if (values.once) {
      const report = await mirror.sync();
      stop.abort();
      await printing;
      if (!out.json) out.one(report);
    } else {
      await mirror.run({ signal: stop.signal });
      await printing;
    }
    return 0;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    stop.abort();
    await mirror.close();
  }
}
