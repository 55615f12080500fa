/**
 * Walk every order of a site, print its totals exactly, and keep the cursor to resume later.
 *
 *   PARTNER_ORDERS_BASE_URL=... PARTNER_ORDERS_CLIENT_ID=... PARTNER_ORDERS_CLIENT_SECRET=... \
 *     npx tsx examples/list-orders.ts 12
 */
// @ts-nocheck

import { Decimal, isProblem, PartnerOrders } from "partner-orders";

const siteId = Number(process.argv[2] ?? 1);
const client = new PartnerOrders({ scopes: ["orders:read"], logger: console });

let sum = new Decimal(0);
let unpriced = 0;
for await (const order of client.orders.list({ siteId, limit: 200 })) {
  // Null means "not computed", never zero: count it apart instead of adding 0.
  if (order.totals.order === null) unpriced++;
  else sum = sum.plus(order.totals.order);
}
console.log(`site ${siteId}: total ${sum.toFixed(2)}, ${unpriced} orders not yet priced`);

// Pages, when you want to store the cursor and resume in another process.
const first = await client.orders.list({ siteId });
console.log(`first page: ${first.data.length} orders, resume with cursor ${first.nextCursor}`);

try {
  await client.orders.get(999_999_999);
} catch (err) {
  // 404 also hides orders outside your grant: it proves nothing about the order's existence.
  if (isProblem(err, "order_not_found")) console.log(`not visible (requestId ${err.requestId})`);
  else throw err;
}
