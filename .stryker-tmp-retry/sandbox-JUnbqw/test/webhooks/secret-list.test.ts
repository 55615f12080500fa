// @ts-nocheck
import { PartnerOrdersError } from "partner-orders";
import { createWebhookHandler, verifyWebhook } from "partner-orders/webhooks";
import { describe, expect, it } from "vitest";
import { delivery, NOW, SECRET } from "./support";

/**
 * A secret list with an empty entry is refused at configuration with a PartnerOrdersError, never
 * accepted with the entry skipped: it is usually a rotation variable left unset, e.g.
 * `[process.env.WEBHOOK_SECRET, process.env.WEBHOOK_SECRET_PREVIOUS ?? ""]`.
 */
const bad: Array<[string, unknown]> = [
  ["an empty entry after a good one", [SECRET, ""]],
  ["an empty entry before a good one", ["", SECRET]],
  ["an unset variable in the list", [SECRET, undefined]],
  ["a non-string entry", [SECRET, 42]],
  ["an empty list", []],
  ["an empty string", ""],
];

describe("a webhook secret list with an empty entry", () => {
  it.each(bad)("createWebhookHandler refuses %s when it is created", (_, secret) => {
    let error: unknown;
    try {
      createWebhookHandler({ secret: secret as string[], onEvent: () => {} });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(`${(error as Error).message} ${(error as Error).stack}`).not.toContain(SECRET);
  });

  it.each(bad)(
    "verifyWebhook refuses %s, even for a delivery a good entry signed",
    async (_, secret) => {
      const { body, headers } = await delivery();
      const error = await verifyWebhook({
        body,
        headers,
        secret: secret as string[],
        now: NOW,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PartnerOrdersError);
      expect((error as Error).name).toBe("PartnerOrdersError");
      expect((error as Error).message).not.toContain(SECRET);
    },
  );

  it("says which entry of the list is empty", () => {
    expect(() => createWebhookHandler({ secret: [SECRET, "x", ""], onEvent: () => {} })).toThrow(
      /entry 2 of the list/,
    );
  });

  it("a list of non-empty secrets is accepted", async () => {
    const { body, headers } = await delivery();
    expect(() => createWebhookHandler({ secret: ["a", SECRET], onEvent: () => {} })).not.toThrow();
    await expect(
      verifyWebhook({ body, headers, secret: ["whsec_other", SECRET], now: NOW }),
    ).resolves.toMatchObject({ eventId: "evt_0a1b2c3d" });
  });
});
