/**
 * The README's first command (`npm start`): starts the built-in sandbox on loopback, then uses the
 * SDK against it over real HTTP the way a partner's backend would. No credentials, no network.
 *
 * Against the real service, drop the sandbox and construct the client from your environment:
 *   new PartnerOrders() // PARTNER_ORDERS_BASE_URL, PARTNER_ORDERS_CLIENT_ID, PARTNER_ORDERS_CLIENT_SECRET
 */
// @ts-nocheck

import { type Decimal, type OrderRequest, PartnerOrders } from "partner-orders";
import { createSandbox } from "partner-orders/testing";

// The service answers POST /v1/orders within 20 s; the sandbox answers at once, so the SDK shows its
// polling (every Retry-After: 2 s) while the order moves queued -> processing -> completed.
const sandbox = createSandbox({ seed: 1, syncWaitMs: 0 });
const { url } = await sandbox.listen();
const client = new PartnerOrders({ baseUrl: url, ...sandbox.credentials, scopes: ["orders:read"] });

const money = (amount: Decimal | null) => (amount === null ? "not computed" : amount.toFixed(2));
const row = (label: string, text: string) => console.log(`${label.padEnd(13)} ${text}`);

try {
  console.log(`partner-orders quickstart, against the sandbox at ${url}\n`);

  const me = await client.me();
  row("Who am I", `${me.partnerName} (${me.partnerId}), signed in with ${me.authMethod}`);
  row("", `scopes: ${me.scopes.join(", ") || "(none)"}`);

  const sites = await client.sites.list();
  for (const [i, site] of sites.entries()) {
    row(i === 0 ? "Sites" : "", `${site.siteId} ${site.name}: ${site.live ? "live" : "not live"}`);
  }

  const siteId = me.grantedSiteIds[0] as number;
  const firstPage = await client.orders.list({ siteId, limit: 5 });
  row(
    "First orders",
    `site ${siteId}, ${firstPage.data.length} of many (more: ${firstPage.hasNextPage()})`,
  );
  for (const order of firstPage.data) {
    const { item, tax, order: total } = order.totals;
    row(
      "",
      `#${order.orderNumber} ${String(order.status).padEnd(12)} total ${money(total)} ` +
        `(items ${money(item)}, tax ${money(tax)})`,
    );
  }

  const products = await client.products.list({ siteId, serviceType: "POD", limit: 1 });
  const product = products.data[0];
  if (!product) throw new Error(`The sandbox has no POD product on site ${siteId}.`);
  const quantity = Math.max(25, product.minQuantity ?? 1);
  const quote = await client.products.quote(product.productId, quantity);
  row(
    "Quote",
    `${quantity} x ${product.name} (${product.productId}) = ${quote.totalPrice.toFixed(2)}`,
  );

  const request: OrderRequest = {
    siteId,
    partnerOrderId: "quickstart-0001",
    shipTo: {
      name: "Ada Lovelace",
      address1: "12 St James's Square",
      city: "London",
      state: "London",
      postalCode: "SW1Y 4JH",
      country: "GB",
    },
    lines: [{ productId: product.productId, partnerLineId: "line-1", quantity }],
  };
  const seen: string[] = [];
  const submission = await client.submitOrderAndWait(request, {
    onPoll: (s) => seen.push(s.status),
  });
  if (submission.status === "failed") {
    throw new Error(`The order failed: ${submission.errors.map((e) => e.detail).join("; ")}`);
  }
  if (submission.status !== "completed") throw new Error(`The order is ${submission.status}.`);
  const placed = submission.order;
  row("Submitted", `${request.partnerOrderId}: ${seen.join(" -> ")}`);
  row("", `order #${placed.orderNumber}, total ${placed.totalPrice.toFixed(2)}`);

  // Staff ship the order in the sandbox; against the real service this happens in the plant.
  const shipmentNumber = sandbox.admin.addShipment(placed.orderNumber, {});
  sandbox.admin.shipShipment(placed.orderNumber, shipmentNumber, {
    shippingService: "UPS Ground",
    packages: ["1Z999AA10123456784"],
  });
  for await (const shipment of client.orders.shipments(placed.orderNumber)) {
    const tracking = shipment.trackingNumbers.join(", ") || "none yet";
    row(
      "Shipments",
      `#${shipment.shipmentNumber} via ${shipment.shippingService}, tracking ${tracking}`,
    );
  }
} finally {
  await sandbox.close();
}
