// @ts-nocheck
import { verifyWebhook, WebhookVerificationError } from "partner-orders/webhooks";
import { describe, expect, it } from "vitest";
import { delivery, NOW, SECRET } from "./support";

/**
 * verifyWebhook reads at most 4,096 characters of Platform-Signature (src/webhooks/verify.ts): a
 * bound on the work a hostile header can cause, far above any rotation's needs. A valid header
 * padded with an entry of another scheme (ignored, as `v0` is) to exactly the cap verifies; one
 * character more is `malformed_header`, even though its signature is right.
 */
async function paddedTo(length: number) {
  const { body, headers } = await delivery();
  const signature = headers["platform-signature"];
  const pad = length - signature.length - ",v0=".length;
  const header = `${signature},v0=${"a".repeat(pad)}`;
  expect(header).toHaveLength(length);
  return { body, headers: { "platform-signature": header } };
}

describe("the signature header's 4,096-character cap", () => {
  it("a correctly signed header of exactly 4,096 characters verifies", async () => {
    const { body, headers } = await paddedTo(4096);
    await expect(verifyWebhook({ body, headers, secret: SECRET, now: NOW })).resolves.toMatchObject(
      { eventId: "evt_0a1b2c3d" },
    );
  });

  it.each([4097, 100_000])(
    "a correctly signed header of %i characters is malformed_header",
    async (length) => {
      const { body, headers } = await paddedTo(length);
      const error = await verifyWebhook({ body, headers, secret: SECRET, now: NOW }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect((error as WebhookVerificationError).reason).toBe("malformed_header");
      expect((error as Error).message).toContain("4096");
    },
  );
});
