/**
 * A webhook receiver on plain node:http. Run it with
 *
 *   WEBHOOK_SECRET=whsec_... npx tsx examples/webhook-receiver.ts
 *
 * and register http(s)://<your host>/webhooks with the platform's staff. It answers every delivery
 * at once (a delivery not answered within 5 seconds is lost; there is no retry) and handles the
 * event afterwards, once per eventId.
 */
// @ts-nocheck

import { createServer, type Server } from "node:http";
import { pathToFileURL } from "node:url";
import { createWebhookHandler, type KnownWebhookEvent } from "partner-orders/webhooks";

/** Runs after the answer. An event only names what changed: re-read it through the API. */
async function onEvent(event: KnownWebhookEvent): Promise<void> {
  switch (event.type) {
    case "order.status_changed":
      console.log(
        `order ${event.orderNumber} changed status: re-read GET /v1/orders/${event.orderNumber}`,
      );
      break;
    case "shipment.shipped":
    case "shipment.cancelled":
      console.log(`order ${event.orderNumber}, shipment ${event.shipmentNumber}: ${event.type}`);
      break;
    case "order_line.cancelled":
      console.log(`order ${event.orderNumber}: a line was cancelled`);
      break;
  }
}

/** The receiver: POST /webhooks goes to the handler, everything else is 404. */
export function createReceiver(secret: string | undefined): Server {
  const webhooks = createWebhookHandler({ secret, onEvent });
  return createServer((req, res) => {
    if (req.url?.split("?")[0] === "/webhooks") return void webhooks.node(req, res);
    res.statusCode = 404;
    res.end();
  });
}

// Listen only when run directly, not when imported (for instance by the type checker or a test).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.warn(
      "WEBHOOK_SECRET is not set: deliveries are parsed but not verified. Only do this for an " +
        "endpoint registered without a signing secret.",
    );
  }
  const port = Number(process.env.PORT ?? 3000);
  createReceiver(secret).listen(port, () => {
    console.log(`Receiving webhooks on http://localhost:${port}/webhooks`);
  });
}
