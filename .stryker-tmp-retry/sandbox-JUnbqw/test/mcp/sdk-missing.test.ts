// @ts-nocheck
import { PartnerOrders, PartnerOrdersError } from "partner-orders";
import { connectMcp } from "partner-orders/mcp";
import { expect, it, vi } from "vitest";

// As if the optional peer dependency were not installed.
vi.mock("@modelcontextprotocol/sdk/client/index.js", () => {
  throw new Error("Cannot find package '@modelcontextprotocol/sdk'");
});

it("connectMcp without the MCP SDK installed says to install it", async () => {
  const client = new PartnerOrders({ baseUrl: "https://api.example.com", accessToken: "t" });
  const error = await connectMcp(client).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).name).toBe("PartnerOrdersError");
  expect((error as Error).message).toContain("npm install @modelcontextprotocol/sdk");
});

it("connectMcp refuses anything that is not a PartnerOrders client", async () => {
  await expect(connectMcp({} as PartnerOrders)).rejects.toBeInstanceOf(PartnerOrdersError);
});
