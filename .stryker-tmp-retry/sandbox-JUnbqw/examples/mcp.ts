/**
 * The service's MCP endpoint through the official MCP SDK, with the REST client's credentials.
 * Needs `npm install @modelcontextprotocol/sdk`.
 *
 *   PARTNER_ORDERS_BASE_URL=... PARTNER_ORDERS_CLIENT_ID=... PARTNER_ORDERS_CLIENT_SECRET=... \
 *     npx tsx examples/mcp.ts 100001
 */
// @ts-nocheck

import { PartnerOrders } from "partner-orders";
import { connectMcp } from "partner-orders/mcp";

const client = new PartnerOrders({ scopes: ["orders:read"] });
// Same token cache as the REST calls below: one token serves both.
const mcp = await connectMcp(client);
try {
  const { tools } = await mcp.listTools(); // only the tools your scopes allow
  console.log(tools.map((tool) => tool.name).join(", "));

  const orderNumber = Number(process.argv[2] ?? 100001);
  const result = await mcp.callTool({ name: "get_order", arguments: { orderNumber } });
  const [first] = result.content as Array<{ type: string; text?: string }>;
  if (result.isError) {
    // The REST problem document, e.g. {"status":404,"code":"order_not_found",...}
    console.error(`tool error: ${first?.text}`);
  } else {
    // The same JSON as GET /v1/orders/{orderNumber}; money stays a decimal string.
    const order = JSON.parse(first?.text ?? "{}") as { totals: { order: string | null } };
    console.log(`order ${orderNumber} total: ${order.totals.order ?? "not computed"}`);
    // The REST client gives the same order with exact Decimal money.
    console.log((await client.orders.get(orderNumber)).totals.order?.toFixed(2));
  }
} finally {
  await mcp.close();
}
