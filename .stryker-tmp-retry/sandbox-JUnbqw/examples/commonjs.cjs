// @ts-nocheck
// CommonJS: the package loaded with require(), as in a script or a codebase not yet on ES modules.
// Lists a few orders from the in-memory sandbox and prints one line.
//
//   node examples/commonjs.cjs        (after `npm run build`, or with partner-orders installed)
const { PartnerOrders } = require("partner-orders");
const { createSandbox } = require("partner-orders/testing");

async function main() {
  const sandbox = createSandbox();
  try {
    const client = new PartnerOrders({
      baseUrl: sandbox.baseUrl,
      ...sandbox.credentials,
      fetch: sandbox.fetch,
    });
    const siteId = sandbox.fixtures.sites.main;
    const page = await client.orders.list({ siteId, limit: 5 });
    const first = page.data[0];
    // Totals are Decimals, or null when not computed (null is not zero).
    const total = first?.totals.order?.toFixed(2) ?? "not computed";
    console.log(
      `${page.data.length} orders on site ${siteId}; first #${first?.orderNumber} ${first?.status}, total ${total}`,
    );
  } finally {
    await sandbox.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
