// @ts-nocheck
import { readdirSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { signWebhook } from "partner-orders/webhooks";
import { describe, expect, it } from "vitest";
import { createReceiver } from "../../examples/webhook-receiver";
import { shipmentShipped } from "./support";

describe("webhooks on every runtime", () => {
  it("import nothing from Node: Web Crypto and Fetch types only", () => {
    const dir = fileURLToPath(new URL("../../src/webhooks/", import.meta.url));
    for (const file of readdirSync(dir)) {
      const source = readFileSync(dir + file, "utf8");
      expect(source, file).not.toMatch(/from\s+["'](node:|crypto["'])/);
      expect(source, file).not.toMatch(/\brequire\(/);
    }
  });
});

describe("examples/webhook-receiver.ts", () => {
  it("does not listen when imported, and receives a signed delivery when started", async () => {
    const server = createReceiver("whsec_example");
    expect(server.listening).toBe(false);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const body = JSON.stringify(shipmentShipped());
      const headers = { "platform-signature": await signWebhook(body, "whsec_example") };
      expect((await fetch(`${url}/webhooks`, { method: "POST", body, headers })).status).toBe(200);
      expect((await fetch(`${url}/elsewhere`, { method: "POST", body, headers })).status).toBe(404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
