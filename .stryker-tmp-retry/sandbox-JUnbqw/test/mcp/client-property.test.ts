// @ts-nocheck
import { afterEach, describe, expect, it } from "vitest";
import { mcpSandbox } from "./support";

/** API.md, Operations: `client.mcp`, a connected client of the official MCP SDK. */
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("client.mcp", () => {
  it("is one connected MCP client, shared across uses, answering like the REST call", async () => {
    const { sandbox, client } = await mcpSandbox();
    closers.push(() => sandbox.close());
    const partner = client();
    const first = partner.mcp;
    expect(partner.mcp).toBe(first);
    const mcp = await first;
    closers.push(() => mcp.close());
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toContain("get_order");
    const result = await mcp.callTool({ name: "list_sites", arguments: {} });
    const rest = await partner.sites.list();
    const content = result.content as Array<{ type: string; text: string }>;
    expect(JSON.parse(content[0]?.text ?? "null").sites).toEqual(JSON.parse(JSON.stringify(rest)));
    expect(sandbox.counters.tokenRequests).toBe(1);
  });
});
