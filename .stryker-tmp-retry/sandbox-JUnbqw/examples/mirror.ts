/**
 * A local mirror of your orders, kept in step with the service, and a consumer that tells customers
 * their tracking numbers. Runs against the built-in sandbox: `npx tsx examples/mirror.ts`.
 *
 * The mirror reads what it must (sweeps of the order list, open orders every few minutes) and
 * treats webhooks as triggers to re-read now; a change whose webhook never came is found anyway.
 */
// @ts-nocheck

import { PartnerOrders } from "partner-orders";
import { OrderMirror, sqliteStore } from "partner-orders/sync";
import { createSandbox } from "partner-orders/testing";
import { createWebhookHandler } from "partner-orders/webhooks";

const sandbox = createSandbox({ clock: "manual" });
const { url } = await sandbox.listen();
const client = new PartnerOrders({ baseUrl: url, ...sandbox.credentials });
const mirror = new OrderMirror({ client, store: sqliteStore(":memory:"), clock: sandbox.clock });

// Webhooks into the mirror: the handler answers 2xx at once and the mirror re-reads what the event
// names. In production, mount `webhooks` on your HTTP server as a (req, res) or Fetch handler.
const secret = "whsec_example";
const webhooks = createWebhookHandler({ secret, onEvent: (event) => mirror.handleEvent(event) });
sandbox.webhooks.register({ url: "https://partner.example/webhooks", secret, fetch: webhooks });

const first = await mirror.sync();
console.log(`mirrored ${first.ordersSeen} orders in ${first.requests} requests`);

// The consumer: every shipment that ships from now on, once, with its tracking numbers. In production
// give it a name, changes({ consumer: "notify-customers" }), so a restart resumes where it stopped
// (delivery is at least once: dedupe by change.id).
const stop = new AbortController();
const consumer = (async () => {
  for await (const change of mirror.changes({ signal: stop.signal })) {
    if (change.type === "shipment.shipped") {
      console.log(
        `order ${change.orderNumber} shipped: ${change.trackingNumbers.join(", ")} (${change.cause})`,
      );
    }
    if (change.type === "shipment.tracking_fault") {
      console.log(
        `order ${change.orderNumber}: shipped without tracking, reported to the platform`,
      );
    }
  }
})();

// The world moves on: one shipment is announced by a webhook (read at once)...
sandbox.admin.shipShipment(100_030, 9, { packages: ["1ZEXAMPLE0001"] });
await sandbox.webhooks.settled();
// ...and one ships while the webhook endpoint is unregistered, so no webhook ever comes.
const silent = sandbox.admin.placeOrder({ lines: 1 });
await mirror.refresh(silent);
sandbox.webhooks.unregister(sandbox.webhooks.deliveries[0]?.registrationId ?? "");
sandbox.admin.shipShipment(silent, 1, { packages: ["1ZSILENT0001"] });

// Five minutes later the next pass (sweep and open-order poll) finds it anyway.
sandbox.clock.advance(5 * 60_000);
const later = await mirror.sync();
console.log(`a poll later: ${later.changesWritten} changes, ${later.requests} requests`);

const order = await mirror.get(silent);
console.log(
  `stored order ${silent}: ${order?.shipments.length} shipment(s), total ${order?.totals.order ?? "not computed"}`,
);

// Let the consumer print what is waiting, then stop.
await new Promise((resolve) => setTimeout(resolve, 50));
stop.abort();
await consumer;
await mirror.close();
await sandbox.close();
