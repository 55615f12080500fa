import { PartnerOrders } from "partner-orders";
import { connectMcp } from "partner-orders/mcp";
import { createSandbox } from "partner-orders/testing";
import { afterAll, expect, it } from "vitest";
import { Pki } from "../mtls/pki";
import { toolJson } from "./support";

const pki = new Pki();
afterAll(() => pki.dispose());

it("over mutual TLS the MCP client presents the certificate: MTLS principal, order tools listed", async () => {
  const sandbox = createSandbox();
  const server = pki.server();
  const host = await sandbox.listen({
    tls: { key: server.key, cert: server.cert, ca: pki.ca.cert },
  });
  const partner = pki.client("mcp-partner");
  await sandbox.registerCertificate({ certPem: partner.cert });
  const client = new PartnerOrders({ baseUrl: host.url, mtls: { ...partner, ca: pki.ca.cert } });

  const mcp = await connectMcp(client);
  const names = (await mcp.listTools()).tools.map((t) => t.name);
  // mTLS scopes are the partner record's capabilities (API document, Effective scopes).
  expect(names).toContain("list_orders");
  expect(toolJson(await mcp.callTool({ name: "me", arguments: {} }))).toMatchObject({
    authMethod: "MTLS",
    partnerId: sandbox.fixtures.partnerId,
  });
  expect(sandbox.counters.tokenRequests).toBe(0);
  await mcp.close();
  await sandbox.close();
});
