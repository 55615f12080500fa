// @ts-nocheck
import { PartnerOrders, PartnerOrdersError } from "partner-orders";
import { expect, it, vi } from "vitest";

// As if the optional peer dependency were not installed.
vi.mock("undici", () => {
  throw new Error("Cannot find package 'undici'");
});

it("mutual TLS without undici installed says to install it, and sends nothing", async () => {
  const fetchSpy = vi.spyOn(globalThis, "fetch");
  const client = new PartnerOrders({
    baseUrl: "https://mtls.example.com",
    mtls: { cert: "-----BEGIN CERTIFICATE-----", key: "-----BEGIN PRIVATE KEY-----" },
  });
  const error = await client.me().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PartnerOrdersError);
  expect((error as Error).message).toContain("npm install undici");
  expect(fetchSpy).not.toHaveBeenCalled();
});
